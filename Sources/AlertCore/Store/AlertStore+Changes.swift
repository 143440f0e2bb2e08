import Foundation

extension AlertStore {
    /// Applies the rules to a draft and stores the alert as pending.
    ///
    /// - Parameters:
    ///   - draft: The alert as the producer asked for it.
    ///   - owner: Who creates it (listed and filtered by it), or `nil` for nobody in particular.
    /// - Returns: The alert with normalized buttons and fields, `createdAt` now and `expiresAt` now + timeout.
    /// - Throws: `AlertStoreError` `invalid` listing every broken rule, `tooManyPending` when `maxPending`
    ///   alerts are pending, or `unavailable` when the journal failed.
    public func create(_ draft: AlertDraft, owner: String? = nil) throws(AlertStoreError) -> Alert {
        defer { endTurn() }
        return try insert(PreparedAlert(draft, limits: configuration.limits), owner: owner, idempotency: nil)
    }

    /// Creates an alert once per idempotency key and owner: a retry with the same key and the same draft
    /// returns the alert the first call created; the same key from another owner is another key.
    ///
    /// - Parameters:
    ///   - draft: The alert as the producer asked for it.
    ///   - owner: Who creates it, or `nil` for nobody in particular.
    ///   - idempotencyKey: The producer's key for this create; `nil` for none.
    /// - Returns: The alert, and whether it was created by an earlier call with the key.
    /// - Throws: `AlertStoreError` `keyReused` when the key created an alert from a different draft,
    ///   and everything `create(_:)` throws.
    public func create(
        _ draft: AlertDraft, owner: String? = nil, idempotencyKey: String?
    ) throws(AlertStoreError) -> (alert: Alert, replayed: Bool) {
        try create(PreparedAlert(draft, limits: configuration.limits), owner: owner, idempotencyKey: idempotencyKey)
    }

    /// `create(_:owner:idempotencyKey:)` for a draft that passed the rules already, off the store.
    public func create(
        _ prepared: PreparedAlert, owner: String? = nil, idempotencyKey: String?
    ) throws(AlertStoreError) -> (alert: Alert, replayed: Bool) {
        defer { endTurn() }
        guard let idempotencyKey else { return (try insert(prepared, owner: owner, idempotency: nil), false) }
        let draft = prepared.draft
        let key = IdempotencyScope(owner: owner, key: idempotencyKey)
        if let earlier = idempotencyKeys[key], let alert = records[earlier.sequence] {
            guard earlier.draft == draft else { throw .keyReused(idempotencyKey) }
            return (alert, true)
        }
        let record = IdempotencyRecord(owner: owner, key: idempotencyKey, draft: draft)
        let alert = try insert(prepared, owner: owner, idempotency: record)
        idempotencyKeys[key] = (draft, alert.sequence)
        keysBySequence[alert.sequence] = key
        return (alert, false)
    }

    /// Stores a new pending alert, indexes it, schedules its expiry, journals it and makes its event.
    private func insert(
        _ prepared: PreparedAlert, owner: String?, idempotency: IdempotencyRecord?
    ) throws(AlertStoreError) -> Alert {
        try requireWritable()
        var alert = try newAlert(prepared, owner: owner, sequence: nextSequence)
        nextSequence += 1
        willChange(alert.sequence)
        // 128 random bits never repeat in practice; the table still refuses a taken id, in the same lookup.
        while !records.insertNew(alert) { alert.id = .random() }
        admit(alert, expiringIn: prepared.draft.timeout.map { .seconds($0) })
        journalize(.created(alert, event: changeIndex, idempotency: idempotency))
        return answeredByRule(alert)
    }

    /// The pending alert a draft makes, created now, once the pending limit allows another.
    func newAlert(_ prepared: PreparedAlert, owner: String?, sequence: UInt64) throws(AlertStoreError) -> Alert {
        guard pendingQueue.count < configuration.maxPending else {
            throw .tooManyPending(limit: configuration.maxPending)
        }
        let draft = prepared.draft
        let normalized = prepared.normalized
        let now = Date.storeNow
        var alert = Alert(
            id: prepared.id,
            sequence: sequence,
            title: draft.title,
            message: draft.message,
            style: draft.style,
            tag: draft.tag,
            presenter: draft.presenter,
            animated: draft.animated,
            buttons: normalized.buttons,
            fields: normalized.fields,
            createdAt: now,
            expiresAt: draft.timeout.map { now.addingTimeInterval($0).millisecondPrecise },
            delivery: draft.callback.map(WebhookDelivery.init(url:)),
            owner: owner
        )
        alert.policy = draft.policy
        alert.tool = draft.tool
        alert.escalation = draft.escalation
        return alert
    }

    /// Indexes a pending alert already in the table, schedules its expiry after `timeout`, and makes its event.
    func admit(_ alert: Alert, expiringIn timeout: Duration?) {
        index(pending: alert)
        if let timeout {
            schedule(Deadline(instant: .now + timeout, kind: .expiry(alert.sequence)))
        }
        scheduleEscalation(of: alert)
        createdCount += 1
        bumpIndex(.created, alert)
    }

    /// Adds a pending alert to the arrival queues.
    func index(pending alert: Alert) {
        pendingQueue.append(alert.sequence)
        keyedQueues[.presenter(alert.presenter), default: ArrivalQueue()].append(alert.sequence)
        if let owner = alert.owner { keyedQueues[.owner(owner), default: ArrivalQueue()].append(alert.sequence) }
    }
}

extension AlertStore {
    /// Resolves a pending alert with a responder's choice.
    ///
    /// - Parameters:
    ///   - id: The alert's id.
    ///   - answer: The button chosen and the values typed (`nil` values means each field's text).
    ///   - responder: Who answered (a credential's name), recorded in the result; `nil` for nobody in particular.
    /// - Returns: The result, with resolution `answered`.
    /// - Throws: `AlertStoreError` `notFound`; `alreadyResolved` with the winning result; `invalid` for an
    ///   index out of range (`/buttonIndex`), an unknown title or one that several buttons share (`/button`), or
    ///   wrong values (`/values`).
    public func answer(
        _ id: AlertID, with answer: AnswerDraft, by responder: String? = nil
    ) throws(AlertStoreError) -> AlertResult {
        defer { endTurn() }
        let (_, alert) = try pendingRecord(id)
        try requireWritable()
        guard alert.policy.quorum == 1 else {
            throw .invalid([FieldIssue(pointer: "/quorum", detail: "alert \(id.rawValue) has a quorum; vote with "
                + "respond(_:with:by:)")])
        }
        let resolved = try answered(id, with: answer, by: responder)
        settle(resolved)
        return resolved.result!
    }

    /// Answers a pending alert, or on a quorum alert (`policy.quorum` > 1) votes on it: a non-cancel choice is
    /// recorded as `responder`'s vote (a `voted` event) and resolves the alert once `quorum` distinct responders chose
    /// the same button, with that button, the completing voter as responder and the votes in the result; a cancel
    /// choice resolves it at once as cancelled (a veto), its votes recorded too.
    ///
    /// - Returns: The alert after the answer or vote: resolved, or pending with one more vote.
    /// - Throws: what `answer(_:with:by:)` throws, and `alreadyVoted` when `responder` voted already (nothing
    ///   changes).
    public func respond(
        _ id: AlertID, with answer: AnswerDraft, by responder: String? = nil
    ) throws(AlertStoreError) -> Alert {
        defer { endTurn() }
        _ = try pendingRecord(id)
        try requireWritable()
        let alert = try voted(id, with: answer, by: responder)
        if alert.result != nil {
            settle(alert)
        } else {
            willChange(alert.sequence)
            records.store(alert)
            bumpIndex(.voted, alert)
            journalize(.voted(alert, event: changeIndex))
        }
        return alert
    }

    /// The pending alert with this id after `answer`: resolved (quorum 1, a veto, or the vote that completes the
    /// quorum) or with one more vote (not stored).
    func voted(_ id: AlertID, with answer: AnswerDraft, by responder: String?) throws(AlertStoreError) -> Alert {
        let resolved = try answered(id, with: answer, by: responder)
        let (_, alert) = try pendingRecord(id)
        guard alert.policy.quorum > 1, let result = resolved.result else { return resolved }
        return try Self.casting(Vote(responder: responder, buttonIndex: result.buttonIndex, at: result.resolvedAt),
                                values: result.values, on: alert)
    }

    /// A pending quorum alert after `vote`: with one more vote, or resolved by it (the vote that completes the
    /// quorum, or a veto: a cancel button), with the votes in the alert and its result. A cluster's writer casts the
    /// vote a store proposed on the alert as the database holds it.
    ///
    /// - Throws: `alreadyVoted` when the vote's responder voted already.
    public static func casting(_ vote: Vote, values: [String], on alert: Alert) throws(AlertStoreError) -> Alert {
        if alert.votes.contains(where: { $0.responder == vote.responder }) {
            throw .alreadyVoted(alert.id, responder: vote.responder)
        }
        var votes = alert.votes
        votes.append(vote)
        let agreeing = votes.filter { $0.buttonIndex == vote.buttonIndex }.count
        guard alert.buttons[vote.buttonIndex].style == .cancel || agreeing >= alert.policy.quorum else {
            var pending = alert
            pending.votes = votes
            return pending
        }
        var resolved = resolved(alert, buttonIndex: vote.buttonIndex, values: values, resolution: .answered,
                                responder: vote.responder)
        resolved.result?.resolvedAt = vote.at
        resolved.result?.votes = votes
        resolved.votes = votes
        return resolved
    }

    /// The pending alert with this id, resolved by `answer` (not stored).
    func answered(_ id: AlertID, with answer: AnswerDraft, by responder: String?) throws(AlertStoreError) -> Alert {
        let (_, alert) = try pendingRecord(id)
        var issues: [FieldIssue] = []
        let buttonIndex = Self.buttonIndex(for: answer.choice, in: alert, issues: &issues)
        let values = Self.values(answer.values, for: alert, limit: configuration.limits.fieldText, issues: &issues)
        guard let buttonIndex, issues.isEmpty else { throw .invalid(issues) }
        return Self.resolved(alert, buttonIndex: buttonIndex, values: values, resolution: .answered,
                             responder: responder)
    }

    /// Withdraws a pending alert: it resolves as its cancel button (or its only button) with each field's text.
    ///
    /// - Parameters:
    ///   - id: The alert's id.
    ///   - responder: Who withdrew it (a credential's name), recorded in the result; `nil` for nobody in particular.
    /// - Returns: The result, with resolution `dismissed`.
    /// - Throws: `AlertStoreError` `notFound`, or `alreadyResolved` with the winning result.
    public func dismiss(_ id: AlertID, by responder: String? = nil) throws(AlertStoreError) -> AlertResult {
        defer { endTurn() }
        let (sequence, alert) = try pendingRecord(id)
        try requireWritable()
        return resolveAsCancel(sequence, alert: alert, resolution: .dismissed, responder: responder)
    }

    /// The sequence number and alert for an id, if it is still pending.
    func pendingRecord(_ id: AlertID) throws(AlertStoreError) -> (sequence: UInt64, alert: Alert) {
        let (sequence, alert) = try record(id)
        if let result = alert.result { throw .alreadyResolved(result, id: id) }
        return (sequence, alert)
    }

    /// The index of the chosen button, or `nil` after appending an issue.
    private static func buttonIndex(for choice: ButtonChoice, in alert: Alert, issues: inout [FieldIssue]) -> Int? {
        switch choice {
        case .index(let index):
            if alert.buttons.indices.contains(index) { return index }
            let last = alert.buttons.count - 1
            let range = last == 0 ? "its only button is 0" : "its buttons are 0 to \(last)"
            issues.append(FieldIssue(pointer: "/buttonIndex", detail: "buttonIndex \(index) is out of range; \(range)"))
        case .title(let title):
            let matching = alert.buttons.filter { $0.title == title }
            if matching.count == 1 { return matching[0].index }
            if matching.count > 1 {
                let indexes = matching.map { String($0.index) }.joined(separator: ", ")
                let detail = "\(matching.count) buttons are titled '\(title)' (indexes \(indexes)), so the title is "
                    + "ambiguous; answer by buttonIndex instead"
                issues.append(FieldIssue(pointer: "/button", detail: detail))
                return nil
            }
            let known = alert.buttons.map { "'\($0.title)'" }.joined(separator: ", ")
            let detail = "no button is titled '\(title)'; the buttons are \(known)"
            issues.append(FieldIssue(pointer: "/button", detail: detail))
        }
        return nil
    }

    /// The values to record: the given ones when valid, or each field's text when none are given.
    private static func values(
        _ given: [String]?,
        for alert: Alert,
        limit: Int,
        issues: inout [FieldIssue]
    ) -> [String] {
        guard let given else { return alert.fields.map(\.text) }
        guard given.count == alert.fields.count else {
            let expected = switch alert.fields.count {
            case 0: "this alert has no fields, so values must be empty or left out"
            case 1: "this alert has 1 field, so exactly 1 value is expected"
            default: "this alert has \(alert.fields.count) fields, so exactly \(alert.fields.count) are expected"
            }
            let got = given.count == 1 ? "1 value given" : "\(given.count) values given"
            issues.append(FieldIssue(pointer: "/values", detail: "\(got); \(expected)"))
            return given
        }
        for (index, value) in given.enumerated() where value.count > limit {
            issues.append(FieldIssue(
                pointer: "/values/\(index)",
                detail: "value \(index) is \(value.count) characters; at most \(limit) are allowed"
            ))
        }
        return given
    }
}

extension AlertStore {
    /// Resolves a pending alert as its cancel button (or its only button), with each field's text.
    func resolveAsCancel(
        _ sequence: UInt64, alert: Alert, resolution: Resolution, responder: String? = nil
    ) -> AlertResult {
        let resolved = Self.resolvedAsCancel(alert, resolution: resolution, responder: responder)
        settle(resolved)
        return resolved.result!
    }

    /// Records the result of a pending alert, unindexes it, bumps the change index, wakes its waiters once,
    /// and applies retention.
    ///
    /// - Parameters:
    ///   - sequence: The pending alert's sequence number.
    ///   - buttonIndex: A valid index into its buttons.
    ///   - values: One value per field.
    ///   - resolution: How it resolved.
    ///   - responder: Who resolved it, or `nil`.
    func resolve(
        _ sequence: UInt64, buttonIndex: Int, values: [String], resolution: Resolution, responder: String? = nil
    ) -> AlertResult {
        guard let alert = records[sequence], alert.result == nil else {
            preconditionFailure("resolve(\(sequence)) of an alert that is not pending")
        }
        let resolved = Self.resolved(alert, buttonIndex: buttonIndex, values: values, resolution: resolution,
                                     responder: responder)
        settle(resolved)
        return resolved.result!
    }

    /// `alert` with a result made now from the button at `buttonIndex` (a valid index) and `values`; the result
    /// lists the votes of a quorum alert so far (a dismissal or expiry keeps them on record).
    static func resolved(
        _ alert: Alert, buttonIndex: Int, values: [String], resolution: Resolution, responder: String?
    ) -> Alert {
        let button = alert.buttons[buttonIndex]
        var resolved = alert
        resolved.result = AlertResult(
            buttonIndex: button.index,
            buttonTitle: button.title,
            ok: button.style != .cancel,
            values: values,
            resolution: resolution,
            resolvedAt: .storeNow,
            responder: responder
        )
        resolved.result?.votes = alert.votes
        return resolved
    }

    /// `alert` resolved as its cancel button (or its only button), with each field's text.
    static func resolvedAsCancel(_ alert: Alert, resolution: Resolution, responder: String? = nil) -> Alert {
        resolved(alert, buttonIndex: alert.cancelButton?.index ?? 0, values: alert.fields.map(\.text),
                 resolution: resolution, responder: responder)
    }

    /// Stores a pending alert's result (`alert.result`), unindexes it, bumps the change index, wakes its waiters
    /// once, and applies retention.
    func settle(_ alert: Alert) {
        let sequence = alert.sequence
        let resolution = alert.result!.resolution
        willChange(sequence)
        records.store(alert)
        pendingQueue.remove(sequence)
        removeKeyed(sequence, .presenter(alert.presenter))
        if let owner = alert.owner { removeKeyed(sequence, .owner(owner)) }
        if alert.expiresAt != nil && resolution != .expired {
            noteStaleDeadline()
        }
        if alert.escalated.count < alert.escalation.count { noteStaleDeadline() }
        resolvedIndex.insert(sequence, at: .now)
        resolutionCounts[resolution, default: 0] += 1
        bumpIndex(AlertEvent.Kind(resolution), alert)
        journalize(.resolved(alert, event: changeIndex))
        startDelivery(of: alert)
        if let ids = resolutionWaiters.removeValue(forKey: sequence) {
            for id in ids {
                guard let waiter = waiters.removeValue(forKey: id) else { continue }
                noteStaleDeadline()
                wake(waiter, .alert(alert))
            }
        }
        while resolvedIndex.count > max(configuration.maxResolved, 0) {
            dropOldestResolved()
        }
        scheduleRetention()
    }

    /// Hands a resolved alert whose callback is not yet delivered to the webhook sender, once its resolution is
    /// durable.
    func startDelivery(of alert: Alert) {
        guard alert.delivery?.state == .pending, let observer = resolutionObserver else { return }
        afterCommit { failure in if failure == nil { observer(alert) } }
    }

    /// Takes a pending alert out of one keyed queue, dropping the queue once it is empty.
    func removeKeyed(_ sequence: UInt64, _ key: PendingKey) {
        keyedQueues[key]?.remove(sequence)
        if keyedQueues[key]?.isEmpty == true { keyedQueues[key] = nil }
    }

    /// Forgets the resolved alert resolved longest ago.
    func dropOldestResolved() {
        guard let entry = resolvedIndex.removeOldest(), records.remove(entry.sequence) != nil else { return }
        journalize(.dropped(sequence: entry.sequence))
        if let key = keysBySequence.removeValue(forKey: entry.sequence) {
            idempotencyKeys[key] = nil
        }
    }

    /// Drops every resolved alert whose retention has passed by `now`.
    func purgeRetained(now: ContinuousClock.Instant) {
        while let oldest = resolvedIndex.oldest, oldest.instant + configuration.retention <= now {
            dropOldestResolved()
        }
    }

    /// Schedules the retention deadline of the oldest resolved alert, unless one is scheduled already.
    func scheduleRetention() {
        guard retentionDeadline == nil, let oldest = resolvedIndex.oldest else { return }
        let instant = oldest.instant + configuration.retention
        retentionDeadline = instant
        schedule(Deadline(instant: instant, kind: .retention))
    }
}

extension AlertStore {
    /// Records one delivery attempt of an alert's result to its callback URL (with an authority, there too: this
    /// cache shows the delivery as this instance made it).
    ///
    /// - Parameters:
    ///   - id: The alert.
    ///   - error: Why the attempt failed, or `nil` when the receiver accepted it.
    ///   - final: Whether no more attempts will be made.
    /// - Returns: The delivery as recorded, or `nil` when the alert is gone or has no callback.
    @discardableResult
    public func recordDelivery(of id: AlertID, error: String?, final: Bool) -> WebhookDelivery? {
        defer { endTurn() }
        authority?.recordDelivery(of: id, error: error, final: final)
        guard fence?.failure == nil, let (sequence, stored) = records.record(id), var delivery = stored.delivery else {
            return nil
        }
        var alert = stored
        delivery.attempts += 1
        delivery.lastAttemptAt = .storeNow
        delivery.lastError = error
        delivery.state = error == nil ? .delivered : (final ? .failed : .pending)
        alert.delivery = delivery
        willChange(sequence)
        records.store(alert)
        journalize(.delivery(sequence: sequence, delivery))
        return delivery
    }
}

/// Escalation: a pending alert takes its next step when the step's time since creation comes (`EscalationStep`).
extension AlertStore {
    /// Schedules the next escalation step of a pending alert, if it has one left.
    func scheduleEscalation(of alert: Alert) {
        guard let due = alert.nextEscalationAt else { return }
        schedule(Deadline(instant: .now + .milliseconds(max(due.timeIntervalSinceNow, 0) * 1000), kind: .escalation(alert.sequence)))
    }

    /// Takes every escalation step of the pending alert `sequence` whose wall-clock time came, each with an event of
    /// its own, and schedules the step after. Steps that came due together (a late timer, a restart) all fire in this
    /// call, so they come before an expiry that was due after them.
    func escalate(_ sequence: UInt64) {
        while let alert = records[sequence], let due = alert.nextEscalationAt {
            let early = due.timeIntervalSinceNow
            guard early <= 0 else {
                schedule(Deadline(instant: .now + .milliseconds(early * 1000 + 1), kind: .escalation(sequence)))
                return
            }
            takeStep(of: alert)
        }
    }

    /// Takes the next escalation step of a pending alert and journals it.
    private func takeStep(of alert: Alert) {
        guard let moved = alert.escalated(at: .storeNow, event: changeIndex + 1) else { return }
        store(step: moved, leaving: alert)
        journalize(.escalated(moved, event: changeIndex))
    }

    /// Stores a pending alert after an escalation step (`moved`, from `alert`): moves it to the step's presenter's
    /// queue, widens who may answer and makes its `escalated` event.
    func store(step moved: Alert, leaving alert: Alert) {
        let sequence = alert.sequence
        willChange(sequence)
        records.store(moved)
        if moved.presenter != alert.presenter {
            removeKeyed(sequence, .presenter(alert.presenter))
            keyedQueues[.presenter(moved.presenter), default: ArrivalQueue()].insert(sequence)
        }
        escalationCount += 1
        bumpIndex(.escalated, moved)
    }
}
