import Foundation

extension AlertStore {
    /// Applies the rules to a draft and stores the alert as pending.
    ///
    /// - Parameters:
    ///   - draft: The alert as the producer asked for it.
    ///   - owner: Who creates it (listed and filtered by it), or `nil` for nobody in particular.
    /// - Returns: The alert with normalized buttons and fields, `createdAt` now and `expiresAt` now + timeout.
    /// - Throws: `AlertStoreError` `invalid` listing every broken rule, or `tooManyPending` when `maxPending`
    ///   alerts are pending.
    public func create(_ draft: AlertDraft, owner: String? = nil) throws(AlertStoreError) -> Alert {
        let normalized = try draft.normalized(limits: configuration.limits)
        guard pendingQueue.count < configuration.maxPending else {
            throw .tooManyPending(limit: configuration.maxPending)
        }
        let sequence = nextSequence
        nextSequence += 1
        let now = Date()
        var alert = Alert(
            id: .random(),
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
            expiresAt: draft.timeout.map { now.addingTimeInterval($0) },
            delivery: draft.callback.map(WebhookDelivery.init(url:)),
            owner: owner
        )
        // 128 random bits never repeat in practice; the table still refuses a taken id, in the same lookup.
        while !records.insertNew(alert) { alert.id = .random() }
        pendingQueue.append(sequence)
        keyedQueues[.presenter(draft.presenter), default: ArrivalQueue()].append(sequence)
        if let owner { keyedQueues[.owner(owner), default: ArrivalQueue()].append(sequence) }
        if let timeout = draft.timeout {
            schedule(Deadline(instant: .now + .seconds(timeout), kind: .expiry(sequence)))
        }
        createdCount += 1
        bumpIndex(.created, alert)
        return alert
    }
}
