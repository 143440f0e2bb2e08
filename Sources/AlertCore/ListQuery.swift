import AlertModel

/// Which alerts `AlertStore.list(_:)` returns.
public struct ListQuery: Sendable, Equatable {
    /// Which alerts by state.
    public enum StateFilter: String, Sendable, CaseIterable {
        /// Alerts waiting for an answer.
        case pending
        /// Resolved alerts still kept.
        case resolved
        /// Both, merged by creation order.
        case all
    }

    /// Which alerts by state.
    public var state: StateFilter
    /// Only alerts addressed to this presenter, or all presenters when `nil`.
    public var presenter: String?
    /// Only alerts created by this owner, or everyone's when `nil`.
    public var owner: String?
    /// At most this many alerts; the store honours any value (zero or less gives none).
    public var limit: Int
    /// Only alerts created after the one with this sequence number (`Alert.sequence`: a page's last), or from the
    /// first when `nil`.
    public var after: UInt64?

    /// Creates a query.
    ///
    /// - Parameters:
    ///   - state: Which alerts by state.
    ///   - presenter: Only alerts addressed to this presenter; `nil` for all.
    ///   - owner: Only alerts created by this owner; `nil` for everyone's.
    ///   - limit: At most this many alerts.
    ///   - after: Only alerts created after the one with this sequence number; `nil` from the first.
    public init(state: StateFilter = .pending, presenter: String? = nil, owner: String? = nil, limit: Int = 100,
                after: UInt64? = nil) {
        self.state = state
        self.presenter = presenter
        self.owner = owner
        self.limit = limit
        self.after = after
    }
}
