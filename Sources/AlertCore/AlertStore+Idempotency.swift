extension AlertStore {
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
        guard let idempotencyKey else { return (try create(draft, owner: owner), false) }
        let key = IdempotencyScope(owner: owner, key: idempotencyKey)
        if let earlier = idempotencyKeys[key], let alert = records[earlier.sequence] {
            guard earlier.draft == draft else { throw .keyReused(idempotencyKey) }
            return (alert, true)
        }
        let alert = try create(draft, owner: owner)
        idempotencyKeys[key] = (draft, alert.sequence)
        keysBySequence[alert.sequence] = key
        return (alert, false)
    }
}
