import AlertModel
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
