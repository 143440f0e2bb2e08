extension AlertStore {
    /// Creates an alert once per idempotency key: a retry with the same key and the same draft
    /// returns the alert the first call created.
    ///
    /// - Parameters:
    ///   - draft: The alert as the producer asked for it.
    ///   - idempotencyKey: The producer's key for this create; `nil` for none.
    /// - Returns: The alert, and whether it was created by an earlier call with the key.
    /// - Throws: `AlertStoreError` `keyReused` when the key created an alert from a different draft,
    ///   and everything `create(_:)` throws.
    public func create(
        _ draft: AlertDraft, idempotencyKey: String?
    ) throws(AlertStoreError) -> (alert: Alert, replayed: Bool) {
        guard let key = idempotencyKey else { return (try create(draft), false) }
        if let earlier = idempotencyKeys[key], let alert = records[earlier.sequence] {
            guard earlier.draft == draft else { throw .keyReused(key) }
            return (alert, true)
        }
        let alert = try create(draft)
        idempotencyKeys[key] = (draft, alert.sequence)
        keysBySequence[alert.sequence] = key
        return (alert, false)
    }
}
