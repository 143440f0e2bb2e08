import AlertModel

/// An idempotency key within its owner: two producers using the same key never see each other's alert.
struct IdempotencyScope: Hashable, Sendable {
    /// Who created the alert, or `nil` for nobody in particular.
    var owner: String?
    /// The producer's key.
    var key: String
}
