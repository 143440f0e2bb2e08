import AlertCore
import AlertMCP
import Foundation
import JSON
import Locking

/// The MCP tools' `AlertBackend` for `POST /mcp`: alertd's store, in the name of the request's token as its REST
/// routes act (the token's name is the owner of what it creates and the responder of what it dismisses; a producer
/// sees only its own alerts; a role does only what it may on REST). Every store call of the MCP endpoint is here.
///
/// Secure values a person typed are withheld (`nil`) from a caller that may not see them on REST (a responder);
/// the MCP server withholds the rest unless alertd runs with `--mcp-reveal-secure`.
struct StoreBackend: AlertBackend {
    let store: AlertStore
    let caller: Caller
    let webhooks: WebhookPolicy
    /// Whether the client hung up on a call whose alert stays (`MCPCall.keepsAlert`): the tool's withdrawal of its
    /// alert is then refused.
    var keepsAlert: @Sendable () -> Bool = { false }

    func create(_ draft: AlertDraftInput, idempotencyKey: String?) async throws(AlertBackendError) -> AlertSnapshot {
        try allow(.create)
        let prepared: PreparedAlert
        do {
            let parsed = try AlertDraft(json: draft.requestBody, webhooks: webhooks)
            prepared = try Self.prepare(parsed, limits: store.configuration.limits)
        } catch {
            throw AlertBackendError(.rejected, Self.reason(error))
        }
        let (store, owner) = (self.store, caller.name)
        let created = await withCheckedContinuation { continuation in
            store.write(.create(prepared, owner: owner, idempotencyKey: idempotencyKey)) { continuation.resume(returning: $0) }
        }
        switch created {
        case .success(let created): return snapshot(created.alert)
        case .failure(let error): throw Self.backendError(error)
        }
    }

    func alert(_ id: String) async throws(AlertBackendError) -> AlertSnapshot {
        try allow(.read)
        return snapshot(try await current(AlertID(rawValue: id), waiting: .zero))
    }

    func result(_ id: String, until deadline: ContinuousClock.Instant?) async throws(AlertBackendError)
        -> AlertOutcome?
    {
        try allow(.read)
        let alertID = AlertID(rawValue: id)
        let wait = deadline.map { $0 - .now } ?? .seconds(86_400 * 365)
        let alert = try await current(alertID, waiting: wait)
        if alert.result == nil, Task.isCancelled { throw .cancelled }
        return outcome(of: alert)
    }

    /// The callback form of `result(_:until:)`, for `/mcp`'s waiting calls: the store keeps a waiter, as for a
    /// long-poll (`APIHandler.whenResolved`), and no task waits. `wake` runs once, quickly (on the store's thread),
    /// with the Result, `nil` when `deadline` passed or the wait was ended early with the alert pending, or the error.
    /// `wait` (of this backend's store) ends the wait early, whenever it is cancelled.
    func whenResolved(
        _ id: String, until deadline: ContinuousClock.Instant?, on wait: StoreWait,
        _ wake: @escaping @Sendable (Result<AlertOutcome?, AlertBackendError>) -> Void
    ) {
        let alertID = AlertID(rawValue: id)
        do throws(AlertBackendError) {
            try allow(.read)
            guard try readable(alertID) != nil else { throw AlertBackendError(.notFound, "no alert \(id)") }
        } catch {
            return wake(.failure(error))
        }
        let timeout = deadline.map { $0 - .now } ?? .seconds(86_400 * 365)
        let (backend, caller) = (self, self.caller)
        let woken: @Sendable (WaitOutcome) -> Void = { outcome in
            switch outcome {
            case .alert(let alert): wake(.success(Self.outcome(of: alert, for: caller)))
            case .index, .notFound: wake(.failure(Self.backendError(.notFound(alertID))))
            case .shuttingDown: wake(.failure(Self.backendError(.shuttingDown)))
            case .unavailable(let failure): wake(.failure(Self.backendError(.unavailable(failure.reason))))
            }
        }
        wait.register({ store throws(AlertStoreError) in try store.whenResolved(alertID, timeout: timeout, woken) }) {
            wake(.failure(backend.backendError($0, alert: alertID)))
        }
    }

    /// After a hang-up the only dismissal a call makes is the tool withdrawing its alert: refused up to 2025-11-25,
    /// so that the alert stays pending for the client's retry (a disconnection is no cancellation there).
    func dismiss(_ id: String) async throws(AlertBackendError) -> AlertOutcome {
        if keepsAlert() { throw .cancelled }
        try allow(.dismiss)
        let alertID = AlertID(rawValue: id)
        _ = try readable(alertID)
        let (store, responder) = (self.store, caller.name)
        let dismissed = await withCheckedContinuation { continuation in
            store.write(.dismiss(alertID, by: responder)) { continuation.resume(returning: $0) }
        }
        switch dismissed {
        case .success(let dismissed): return outcome(of: dismissed.alert)!
        case .failure(let error): throw backendError(error, alert: alertID)
        }
    }

    func pending(limit: Int) async throws(AlertBackendError) -> [AlertSnapshot] {
        try allow(.list)
        let query = ListQuery(state: .pending, presenter: nil, owner: caller.ownerFilter, limit: limit, after: nil)
        let page = await store.run { @Sendable (store: isolated AlertStore) in store.visibleList(query) }
        return page.alerts.map(snapshot)
    }

    // MARK: the caller's rules

    /// - Throws: `.forbidden` when the token's role may not do `action` on REST either.
    private func allow(_ action: Role.Action) throws(AlertBackendError) {
        guard !caller.role.may(action) else { return }
        throw AlertBackendError(.forbidden, "the \(caller.role.rawValue) role may not \(action.phrase)")
    }

    /// The alert as it is now; nil when there is none. A producer's view of another producer's alert is `.notFound`.
    private func readable(_ id: AlertID) throws(AlertBackendError) -> Alert? {
        guard let alert = store.snapshot(of: id) else { return nil }
        if let owner = caller.ownerFilter, alert.owner != owner {
            throw AlertBackendError(.notFound, "no alert \(id.rawValue) of yours")
        }
        return alert
    }

    /// The alert once it resolved or `wait` passed (at once for `.zero`), once what it shows is durable; a cancelled
    /// task returns it as it is.
    private func current(_ id: AlertID, waiting wait: Duration) async throws(AlertBackendError) -> Alert {
        if try readable(id) == nil, store.authority != nil { await store.catchUp() }
        guard try readable(id) != nil else { throw AlertBackendError(.notFound, "no alert \(id.rawValue)") }
        do {
            return try await store.waitForResolution(of: id, timeout: wait)
        } catch {
            throw backendError(error, alert: id)
        }
    }

    // MARK: shapes

    private func snapshot(_ alert: Alert) -> AlertSnapshot {
        AlertSnapshot(
            id: alert.id.rawValue, title: alert.title, message: alert.message, style: alert.style.rawValue,
            presenter: alert.presenter, tag: alert.tag,
            buttons: alert.buttons.map { .init(index: $0.index, title: $0.title, style: $0.style.rawValue) },
            fields: alert.fields.map {
                .init(index: $0.index, placeholder: $0.placeholder, secure: $0.secure, keyboard: $0.keyboard.name)
            },
            result: outcome(of: alert), createdAt: RFC3339.format(alert.createdAt),
            expiresAt: alert.expiresAt.map(RFC3339.format))
    }

    private func outcome(of alert: Alert) -> AlertOutcome? {
        Self.outcome(of: alert, for: caller)
    }

    private func outcome(_ result: AlertResult, fields: [AlertField], owner: String?) -> AlertOutcome {
        Self.outcome(result, fields: fields, owner: owner, for: caller)
    }

    private static func outcome(of alert: Alert, for caller: Caller) -> AlertOutcome? {
        guard let result = alert.result else { return nil }
        return outcome(result, fields: alert.fields, owner: alert.owner, for: caller)
    }

    private static func outcome(_ result: AlertResult, fields: [AlertField], owner: String?, for caller: Caller)
        -> AlertOutcome
    {
        let reveal = caller.role == .admin || (caller.role == .producer && owner == caller.name)
        let values: [String?] = result.values.enumerated().map { index, value in
            index < fields.count && fields[index].secure && !reveal ? nil : value
        }
        return AlertOutcome(
            buttonIndex: result.buttonIndex, buttonTitle: result.buttonTitle, ok: result.ok, values: values,
            resolution: result.resolution.rawValue, resolvedAt: RFC3339.format(result.resolvedAt),
            responder: result.responder)
    }

    // MARK: errors

    private static func prepare(_ draft: AlertDraft, limits: StoreLimits) throws(Problem) -> PreparedAlert {
        do {
            return try PreparedAlert(draft, limits: limits)
        } catch {
            throw Problem(error)
        }
    }

    /// A problem's detail and each issue, as one sentence for the agent.
    private static func reason(_ problem: Problem) -> String {
        let issues = problem.errors.map { item -> String in
            switch item.location {
            case .pointer(let pointer): "\(pointer.isEmpty ? "/" : pointer): \(item.detail)"
            case .parameter(let name), .header(let name): "\(name): \(item.detail)"
            }
        }
        return issues.count > 1 || (issues.count == 1 && issues[0] != problem.detail)
            ? problem.detail + " (" + issues.joined(separator: "; ") + ")" : problem.detail
    }

    private func backendError(_ error: AlertStoreError, alert id: AlertID) -> AlertBackendError {
        if error.kind == .alreadyResolved, let result = error.result {
            let owner = store.snapshot(of: id)?.owner
            let fields = store.snapshot(of: id)?.fields ?? []
            return AlertBackendError(.alreadyResolved(outcome(result, fields: fields, owner: owner)), error.message)
        }
        return Self.backendError(error)
    }

    private static func backendError(_ error: AlertStoreError) -> AlertBackendError {
        switch error.kind {
        case .notFound: AlertBackendError(.notFound, error.message)
        case .invalid, .tooManyPending, .keyReused, .historyGone, .alreadyResolved, .alreadyVoted, .ruleExists:
            AlertBackendError(.rejected, reason(Problem(error)))
        case .shuttingDown, .unavailable: AlertBackendError(.failed, error.message)
        }
    }
}

/// A store waiter of `StoreBackend.whenResolved`: registered through `AlertStore.run(_:then:)` (at once when the store
/// is idle, else from a short task, as a long-poll's), and ended early by `cancel`, even before it is registered.
final class StoreWait: Sendable {
    private let store: AlertStore
    private let state = Lock<(ticket: WaiterTicket?, cancelled: Bool)>((nil, false))

    init(store: AlertStore) {
        self.store = store
    }

    /// Registers the waiter `work` makes; `failed` gets the error when the store refuses it (the waiter never wakes).
    func register(
        _ work: @escaping @Sendable (isolated AlertStore) throws(AlertStoreError) -> WaiterTicket,
        failed: @escaping @Sendable (AlertStoreError) -> Void
    ) {
        store.run(work) { [self] outcome in
            switch outcome {
            case .success(let ticket): registered(ticket)
            case .failure(let error): failed(error)
            }
        }
    }

    /// Ends the wait as if its time were up: the waiter wakes with the alert as it is.
    func cancel() {
        let ticket = state.withLock { state in
            state.cancelled = true
            return state.ticket
        }
        if let ticket { end(ticket) }
    }

    private func registered(_ ticket: WaiterTicket) {
        let cancelled = state.withLock { state in
            state.ticket = ticket
            return state.cancelled
        }
        if cancelled { end(ticket) }
    }

    private func end(_ ticket: WaiterTicket) {
        store.run({ store in store.cancelWaiter(ticket) }, then: { _ in })
    }
}
