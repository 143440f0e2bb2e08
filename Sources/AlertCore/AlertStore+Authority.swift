import Foundation

/// Changes in one call for every mode: the store decides them itself (memory only, or with a journal), or proposes
/// them to its authority and shows them once the authority has committed them and `apply(_:)` has applied them.
extension AlertStore {
    /// What a change call hands back: its value, or why it failed.
    public typealias Completion<Value: Sendable> = @Sendable (Result<Value, AlertStoreError>) -> Void

    /// Creates an alert (once per idempotency key and owner), and calls `done` once the alert is durable and
    /// readable here.
    ///
    /// - Parameters:
    ///   - prepared: A draft that passed the rules.
    ///   - owner: Who creates it, or `nil` for nobody in particular.
    ///   - idempotencyKey: The producer's key for this create; `nil` for none.
    ///   - done: The alert and whether an earlier call with the key created it; or what `create(_:owner:
    ///     idempotencyKey:)` throws, or `unavailable`.
    public nonisolated func submitCreate(
        _ prepared: PreparedAlert, owner: String?, idempotencyKey: String?,
        done: @escaping Completion<(alert: Alert, replayed: Bool)>
    ) {
        guard let authority else {
            perform({ store throws(AlertStoreError) in
                try store.create(prepared, owner: owner, idempotencyKey: idempotencyKey)
            }, done: Self.settled(done))
            return
        }
        perform({ store throws(AlertStoreError) in try store.newAlert(prepared, owner: owner, sequence: 0) }) {
            outcome, _ in
            switch outcome {
            case .failure(let error):
                done(.failure(error))
            case .success(let alert):
                let record = idempotencyKey.map { IdempotencyRecord(owner: owner, key: $0, draft: prepared.draft) }
                authority.commit(.create(alert, idempotency: record)) { committed in
                    done(committed.map { change in (change.alert, change.replayed) })
                }
            }
        }
    }

    /// Answers a pending alert (see `answer(_:with:by:)`), and calls `done` with the resolved alert once the answer
    /// is durable and readable here.
    public nonisolated func submitAnswer(
        _ id: AlertID, with answer: AnswerDraft, by responder: String?, done: @escaping Completion<Alert>
    ) {
        submitResolution(id, done: done, decided: { store throws(AlertStoreError) in
            _ = try store.answer(id, with: answer, by: responder)
            return try store.alert(id)
        }, proposed: { store throws(AlertStoreError) in
            try store.answered(id, with: answer, by: responder)
        })
    }

    /// Withdraws a pending alert (see `dismiss(_:by:)`), and calls `done` with the resolved alert once the
    /// dismissal is durable and readable here.
    public nonisolated func submitDismissal(_ id: AlertID, by responder: String?, done: @escaping Completion<Alert>) {
        submitResolution(id, done: done, decided: { store throws(AlertStoreError) in
            _ = try store.dismiss(id, by: responder)
            return try store.alert(id)
        }, proposed: { store throws(AlertStoreError) in
            Self.resolvedAsCancel(try store.pendingRecord(id).alert, resolution: .dismissed, responder: responder)
        })
    }

    /// Resolves an alert: `decided` when this store decides, else `proposed` makes the resolution it proposes. An id
    /// this cache does not know yet (created on another instance a moment ago) is looked for again after catching up.
    private nonisolated func submitResolution(
        _ id: AlertID, caughtUp: Bool = false, done: @escaping Completion<Alert>,
        decided: @escaping @Sendable (isolated AlertStore) throws(AlertStoreError) -> Alert,
        proposed: @escaping @Sendable (isolated AlertStore) throws(AlertStoreError) -> Alert
    ) {
        guard let authority else {
            perform(decided, done: Self.settled(done))
            return
        }
        perform(proposed) { outcome, _ in
            switch outcome {
            case .failure(let error) where error.kind == .notFound && !caughtUp:
                authority.catchUp {
                    self.submitResolution(id, caughtUp: true, done: done, decided: decided, proposed: proposed)
                }
            case .failure(let error):
                done(.failure(error))
            case .success(let alert):
                authority.commit(.resolve(alert)) { committed in done(committed.map(\.alert)) }
            }
        }
    }

    /// Returns once this store has applied every change its authority had committed when called (at once without
    /// an authority): an id created on another instance a moment ago is then known here.
    public nonisolated func catchUp() async {
        guard let authority else { return }
        await withCheckedContinuation { continuation in authority.catchUp { continuation.resume() } }
    }

    /// `done` as `perform` calls it: a journal failure is `unavailable`.
    private static func settled<Value: Sendable>(
        _ done: @escaping Completion<Value>
    ) -> @Sendable (Result<Value, AlertStoreError>, JournalFailure?) -> Void {
        { outcome, failure in done(failure.map { .failure(.unavailable($0.reason)) } ?? outcome) }
    }

    /// Applies changes the authority committed, in commit order: each event's change is made as the event says and
    /// wakes whoever waits for it. Events at or below the change index were applied already and are skipped.
    ///
    /// - Parameter events: Committed events, ascending by index, starting at most one past the change index.
    /// - Returns: The change index after applying: less than the last event's index when an event is missing
    ///   before it (the rest were not applied; read them again from there).
    @discardableResult
    public func apply(_ events: [AlertEvent]) -> UInt64 {
        defer { endTurn() }
        for event in events where event.index > changeIndex {
            guard event.index == changeIndex + 1 else { break }
            let alert = event.alert
            switch event.kind {
            case .created:
                guard records.insertNew(alert) else {
                    bumpIndex(.created, alert)
                    continue
                }
                nextSequence = max(nextSequence, alert.sequence + 1)
                admit(alert, expiringIn: alert.expiresAt.map { .milliseconds(max($0.timeIntervalSinceNow, 0) * 1000) })
            case .answered, .dismissed, .expired:
                if alert.result != nil, let cached = records[alert.sequence], cached.result == nil {
                    settle(alert)
                } else {
                    bumpIndex(event.kind, alert)
                }
            }
        }
        return changeIndex
    }

    /// Proposes the expiry of a pending alert whose deadline came, unless its wall-clock deadline is still ahead
    /// (then it waits for it). The authority expires it once, whichever instance gets there first; when the
    /// authority is unreachable, this instance tries again a second later.
    func proposeExpiry(_ sequence: UInt64, to authority: StoreAuthority) {
        guard let alert = records[sequence], alert.result == nil, let expiresAt = alert.expiresAt else { return }
        let early = expiresAt.timeIntervalSinceNow
        guard early <= 0 else {
            schedule(Deadline(instant: .now + .milliseconds(early * 1000 + 1), kind: .expiry(sequence)))
            return
        }
        authority.commit(.resolve(Self.resolvedAsCancel(alert, resolution: .expired))) { [weak self] committed in
            guard case .failure(let error) = committed, error.kind == .unavailable, let self else { return }
            Task {
                try? await Task.sleep(for: .seconds(1))
                await self.retryExpiry(sequence)
            }
        }
    }

    /// Schedules the expiry of a still pending alert again, now.
    private func retryExpiry(_ sequence: UInt64) {
        guard records[sequence]?.result == nil else { return }
        schedule(Deadline(instant: .now, kind: .expiry(sequence)))
    }
}

extension CommittedChange {
    /// The alert as committed.
    public var alert: Alert {
        switch self {
        case .created(let alert, _), .resolved(let alert): alert
        }
    }

    /// Whether an earlier create with the same idempotency key made the alert.
    public var replayed: Bool {
        if case .created(_, let replayed) = self { replayed } else { false }
    }
}
