import AlertMCP
import JSON

/// An `AlertBackend` in memory: alerts resolve when a test answers them, waiters wake then.
actor MemoryBackend: AlertBackend {
    struct Stored {
        var alert: AlertSnapshot
        var draft: AlertDraftInput
    }

    private(set) var alerts: [String: Stored] = [:]
    private(set) var order: [String] = []
    private var keys: [String: String] = [:]
    private var waiters: [String: [CheckedContinuation<Void, Never>]] = [:]
    /// When set, every call fails with it.
    var failure: AlertBackendError?

    func setFailure(_ failure: AlertBackendError?) { self.failure = failure }

    func create(_ draft: AlertDraftInput, idempotencyKey: String?) async throws(AlertBackendError) -> AlertSnapshot {
        if let failure { throw failure }
        if let key = idempotencyKey, let id = keys[key], let stored = alerts[id] { return stored.alert }
        let id = "a\(order.count + 1)"
        var buttons = draft.buttons.enumerated().map { index, button in
            AlertSnapshot.Button(index: index, title: button.title, style: button.style ?? "default")
        }
        if buttons.isEmpty { buttons = [.init(index: 0, title: "OK", style: "default")] }
        if buttons.count > 1, !buttons.contains(where: { $0.style == "cancel" }) { buttons[0].style = "cancel" }
        let alert = AlertSnapshot(
            id: id, title: draft.title ?? "", message: draft.message ?? "", style: draft.style,
            presenter: draft.presenter ?? "root", tag: draft.tag, buttons: buttons,
            fields: draft.fields.enumerated().map { .init(index: $0, placeholder: $1.placeholder, secure: $1.secure, keyboard: $1.keyboard) },
            result: nil, createdAt: "2026-12-02T10:00:00.000Z", expiresAt: nil
        )
        alerts[id] = Stored(alert: alert, draft: draft)
        order.append(id)
        if let key = idempotencyKey { keys[key] = id }
        return alert
    }

    func alert(_ id: String) async throws(AlertBackendError) -> AlertSnapshot {
        if let failure { throw failure }
        guard let stored = alerts[id] else { throw AlertBackendError(.notFound, "no alert \(id)") }
        return stored.alert
    }

    func result(_ id: String, until deadline: ContinuousClock.Instant?) async throws(AlertBackendError) -> AlertOutcome? {
        if let failure { throw failure }
        guard alerts[id] != nil else { throw AlertBackendError(.notFound, "no alert \(id)") }
        if let deadline {
            let timer = Task { [weak self] in
                try? await Task.sleep(until: deadline)
                await self?.wake(id)
            }
            defer { timer.cancel() }
            await suspend(id)
        } else {
            await suspend(id)
        }
        if Task.isCancelled, alerts[id]?.alert.result == nil { throw .cancelled }
        return alerts[id]?.alert.result
    }

    private func suspend(_ id: String) async {
        guard alerts[id]?.alert.result == nil else { return }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiters[id, default: []].append(continuation)
            }
        } onCancel: {
            Task { await self.wake(id) }
        }
    }

    private func wake(_ id: String) {
        for waiter in waiters.removeValue(forKey: id) ?? [] { waiter.resume() }
    }

    func dismiss(_ id: String) async throws(AlertBackendError) -> AlertOutcome {
        if let failure { throw failure }
        guard let stored = alerts[id] else { throw AlertBackendError(.notFound, "no alert \(id)") }
        if let result = stored.alert.result { throw AlertBackendError(.alreadyResolved(result), "already resolved") }
        let cancel = stored.alert.buttons[0]
        return resolve(id, AlertOutcome(
            buttonIndex: 0, buttonTitle: cancel.title, ok: cancel.style != "cancel",
            values: stored.draft.fields.map { $0.text }, resolution: "dismissed", resolvedAt: "2026-12-02T10:00:01.000Z",
            responder: nil
        ))
    }

    func pending(limit: Int) async throws(AlertBackendError) -> [AlertSnapshot] {
        if let failure { throw failure }
        return Array(order.compactMap { alerts[$0]?.alert }.filter(\.isPending).prefix(limit))
    }

    // MARK: The responder's side

    @discardableResult
    func answer(_ id: String, button: Int, values: [String]? = nil, responder: String? = "alice") -> AlertOutcome {
        let stored = alerts[id]!
        return resolve(id, AlertOutcome(
            buttonIndex: button, buttonTitle: stored.alert.buttons[button].title,
            ok: stored.alert.buttons[button].style != "cancel", values: values ?? stored.draft.fields.map { $0.text },
            resolution: "answered", resolvedAt: "2026-12-02T10:00:02.000Z", responder: responder
        ))
    }

    func expire(_ id: String) {
        let stored = alerts[id]!
        resolve(id, AlertOutcome(
            buttonIndex: 0, buttonTitle: stored.alert.buttons[0].title, ok: false,
            values: stored.draft.fields.map { $0.text }, resolution: "expired", resolvedAt: "2026-12-02T10:00:03.000Z",
            responder: nil
        ))
    }

    @discardableResult
    private func resolve(_ id: String, _ outcome: AlertOutcome) -> AlertOutcome {
        alerts[id]?.alert.result = outcome
        wake(id)
        return outcome
    }

    /// Waits until `count` alerts exist (a call has created its alert), for 10 s at most.
    /// Whether `count` alerts were made within a minute (it returns as soon as they are: the minute is for a
    /// machine that a parallel `swift test` loads with hundreds of threads).
    func waitForAlerts(_ count: Int) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while order.count < count {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return true
    }

    var pendingIDs: [String] { order.filter { alerts[$0]?.alert.result == nil } }
    var count: Int { order.count }
    func draft(_ id: String) -> AlertDraftInput? { alerts[id]?.draft }
    func outcome(_ id: String) -> AlertOutcome? { alerts[id]?.alert.result }
}
