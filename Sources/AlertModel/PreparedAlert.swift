/// A draft that passed the rules, with its normalized buttons and fields and a fresh id: everything about a new alert
/// that does not need the store, made before taking it so that a create holds the store only to store the alert.
public struct PreparedAlert: Sendable {
    /// The draft as the producer gave it (idempotency compares it with a retry's).
    public let draft: AlertDraft
    package let normalized: AlertDraft.Normalized
    /// The id the alert gets unless it is taken (then the store draws another).
    package let id: AlertID

    /// Applies the rules to `draft` and draws an id.
    ///
    /// - Parameters:
    ///   - draft: The alert as the producer asked for it.
    ///   - limits: The size limits to enforce (the store's `configuration.limits`).
    /// - Throws: `AlertStoreError` `invalid` listing every broken rule.
    public init(_ draft: AlertDraft, limits: StoreLimits) throws(AlertStoreError) {
        self.draft = draft
        normalized = try draft.normalized(limits: limits)
        id = .random()
    }
}
