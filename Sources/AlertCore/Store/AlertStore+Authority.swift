import Foundation

/// Changes in one call for every mode: the store decides them itself (memory only, or with a journal), or proposes
/// them to its authority and shows them once the authority has committed them and `apply(_:)` has applied them.
extension AlertStore {
    /// `write(.create)`: creates an alert (once per idempotency key and owner) and calls `then` once the alert is
    /// durable and readable here.
    nonisolated func writeCreate(
        _ prepared: PreparedAlert, owner: String?, idempotencyKey: String?, then: @escaping Completion<Written>
    ) {
        guard let authority else {
            turn({ store throws(AlertStoreError) in
                let created = try store.create(prepared, owner: owner, idempotencyKey: idempotencyKey)
                return (created.alert, created.replayed)
            }, done: Self.settled(then))
            return
        }
        turn({ store throws(AlertStoreError) in try store.newAlert(prepared, owner: owner, sequence: 0) }) {
            outcome, _ in
            switch outcome {
            case .failure(let error):
                then(.failure(error))
            case .success(let alert):
                let record = idempotencyKey.map { IdempotencyRecord(owner: owner, key: $0, draft: prepared.draft) }
                authority.commit(.create(alert, idempotency: record)) { committed in
                    then(committed.map { change in (change.alert, change.replayed) })
                }
            }
        }
    }

    /// `write(.answer)` (`answering`: on a quorum alert a vote) and `write(.dismiss)`: `decided` when this store
    /// decides, else `proposed` makes the resolution it proposes. An id this cache does not know yet (created on another instance a moment ago) is
    /// looked for again after catching up.
    nonisolated func writeResolution(
        _ id: AlertID, caughtUp: Bool = false, answering: Bool, then: @escaping Completion<Written>,
        decided: @escaping @Sendable (isolated AlertStore) throws(AlertStoreError) -> Alert,
        proposed: @escaping @Sendable (isolated AlertStore) throws(AlertStoreError) -> Alert
    ) {
        guard let authority else {
            turn(decided, done: Self.settled { outcome in then(outcome.map { ($0, false) }) })
            return
        }
        turn(proposed) { outcome, _ in
            switch outcome {
            case .failure(let error) where error.kind == .notFound && !caughtUp:
                authority.catchUp {
                    self.writeResolution(id, caughtUp: true, answering: answering, then: then, decided: decided,
                                         proposed: proposed)
                }
            case .failure(let error):
                then(.failure(error))
            case .success(let alert):
                // A quorum alert's answer is a vote, cast by the authority on the alert as the database holds it.
                let change: ProposedChange = answering && alert.policy.quorum > 1 ? .vote(alert) : .resolve(alert)
                authority.commit(change) { committed in then(committed.map { ($0.alert, false) }) }
            }
        }
    }

    /// Returns once this store has applied every change its authority had committed when called (at once without
    /// an authority): an id created on another instance a moment ago is then known here.
    public nonisolated func catchUp() async {
        guard let authority else { return }
        await withCheckedContinuation { continuation in authority.catchUp { continuation.resume() } }
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
                    if let responder = alert.result?.responder, responder.hasPrefix(AnswerRule.responderPrefix) {
                        ruleAnswerCounts[String(responder.dropFirst(AnswerRule.responderPrefix.count)), default: 0] += 1
                    }
                } else {
                    bumpIndex(event.kind, alert)
                }
            case .voted:
                if alert.result == nil, let cached = records[alert.sequence], cached.result == nil {
                    willChange(alert.sequence)
                    records.store(alert)
                }
                bumpIndex(.voted, alert)
            case .escalated:
                if alert.result == nil, let cached = records[alert.sequence], cached.result == nil,
                   cached.escalated.count < alert.escalated.count {
                    store(step: alert, leaving: cached)
                    scheduleEscalation(of: alert)
                } else {
                    bumpIndex(.escalated, alert)
                }
            }
        }
        return changeIndex
    }

    /// Proposes what a timer came for (an alert's expiry, or its escalation steps), unless its wall-clock time is
    /// still ahead (then it waits for it). The authority makes it once, whichever instance gets there first (the
    /// store schedules an alert's next step when it applies the `escalated` event); when the authority is
    /// unreachable, this instance tries again a second later.
    func propose(_ kind: Deadline.Kind, to authority: StoreAuthority) {
        let due: Date
        let change: ProposedChange
        switch kind {
        case .expiry(let sequence):
            guard let alert = records[sequence], alert.result == nil, let expiresAt = alert.expiresAt else { return }
            (due, change) = (expiresAt, .resolve(Self.resolvedAsCancel(alert, resolution: .expired)))
        case .escalation(let sequence):
            guard let alert = records[sequence], let next = alert.nextEscalationAt else { return }
            (due, change) = (next, .escalate(alert.id))
        case .waiter, .retention:
            return
        }
        let early = due.timeIntervalSinceNow
        guard early <= 0 else {
            schedule(Deadline(instant: .now + .milliseconds(early * 1000 + 1), kind: kind))
            return
        }
        authority.commit(change) { [weak self] committed in
            guard case .failure(let error) = committed, error.kind == .unavailable, let self else { return }
            Task {
                try? await Task.sleep(for: .seconds(1))
                await self.retry(kind)
            }
        }
    }

    /// Schedules what a timer came for again, now, if it still has something to do.
    private func retry(_ kind: Deadline.Kind) {
        let now = Deadline(instant: .now, kind: kind)
        if isLive(now) { schedule(now) }
    }
}

extension CommittedChange {
    /// The alert as committed.
    public var alert: Alert {
        switch self {
        case .created(let alert, _), .resolved(let alert), .voted(let alert), .escalated(let alert): alert
        }
    }

    /// Whether an earlier create with the same idempotency key made the alert.
    public var replayed: Bool {
        if case .created(_, let replayed) = self { replayed } else { false }
    }
}
