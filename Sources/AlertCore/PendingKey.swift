import AlertModel

/// What a per-key queue of pending alerts is keyed by, so a filtered list costs O(limit) too.
enum PendingKey: Hashable, Sendable {
    /// Alerts addressed to this presenter.
    case presenter(String)
    /// Alerts created by this owner.
    case owner(String)
}
