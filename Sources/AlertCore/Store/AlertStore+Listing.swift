
extension AlertStore {
    /// Lists alerts oldest first (by creation), with the change index.
    ///
    /// Pending alerts come from arrival-order indexes, so a page costs O(limit); resolved alerts are bounded by
    /// retention. `all` merges both by creation order.
    ///
    /// - Parameters:
    ///   - query: Which alerts and how many.
    /// - Returns: Up to `query.limit` alerts after `query.after` and the change index.
    public func list(_ query: ListQuery) -> AlertPage {
        guard query.limit > 0 else { return AlertPage(alerts: [], index: changeIndex) }
        let after = query.after
        let pending = pendingSequences(query).drop { sequence in after.map { sequence <= $0 } ?? false }
        let resolved = resolvedSequences(query).drop { sequence in after.map { sequence <= $0 } ?? false }
        let sequences: [UInt64] = switch query.state {
        case .pending: Array(pending.prefix(query.limit))
        case .resolved: Array(resolved.prefix(query.limit))
        case .all: Self.merge(pending, resolved, limit: query.limit)
        }
        return AlertPage(alerts: records.alerts(sequences), index: changeIndex)
    }

    /// Pending sequence numbers, ascending, that match the query's presenter and owner.
    ///
    /// Each filter alone walks its own queue; both walk the owner's queue and check the presenter.
    private func pendingSequences(_ query: ListQuery) -> LazyFilterSequence<ArraySlice<UInt64>> {
        switch (query.presenter, query.owner) {
        case (nil, nil):
            return pendingQueue.live
        case (let presenter?, nil):
            return (keyedQueues[.presenter(presenter)] ?? ArrivalQueue()).live
        case (let presenter, let owner?):
            let live = (keyedQueues[.owner(owner)] ?? ArrivalQueue()).live
            guard let presenter else { return live }
            let records = records
            return live.filter { records[$0]?.presenter == presenter }
        }
    }

    /// Kept resolved sequence numbers, ascending, that match the query's presenter and owner.
    private func resolvedSequences(_ query: ListQuery) -> LazyFilterSequence<[UInt64]> {
        let records = records
        let presenter = query.presenter
        let owner = query.owner
        return resolvedIndex.bySequence.lazy.filter { sequence in
            guard presenter != nil || owner != nil else { return true }
            guard let alert = records[sequence] else { return false }
            return (presenter == nil || alert.presenter == presenter) && (owner == nil || alert.owner == owner)
        }
    }

    /// The first `limit` elements of two ascending sequences merged.
    private static func merge<A: Sequence<UInt64>, B: Sequence<UInt64>>(_ a: A, _ b: B, limit: Int) -> [UInt64] {
        var merged: [UInt64] = []
        merged.reserveCapacity(min(limit, 1024))
        var left = a.makeIterator()
        var right = b.makeIterator()
        var nextLeft = left.next()
        var nextRight = right.next()
        while merged.count < limit {
            switch (nextLeft, nextRight) {
            case let (l?, r?) where l < r:
                merged.append(l)
                nextLeft = left.next()
            case let (_, r?):
                merged.append(r)
                nextRight = right.next()
            case let (l?, nil):
                merged.append(l)
                nextLeft = left.next()
            case (nil, nil):
                return merged
            }
        }
        return merged
    }
}

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

/// A page of alerts and the store's change index when it was taken.
public struct AlertPage: Sendable {
    /// The alerts, oldest first.
    public var alerts: [Alert]
    /// The store's change index; wait for a change past it with `AlertStore.waitForChange(after:timeout:)`.
    public var index: UInt64

    /// Creates a page.
    ///
    /// - Parameters:
    ///   - alerts: The alerts, oldest first.
    ///   - index: The store's change index.
    public init(alerts: [Alert], index: UInt64) {
        self.alerts = alerts
        self.index = index
    }
}

/// What a producer may learn of the change index: only the indexes of events of its own alerts.
///
/// The change index counts everyone's changes. Shown to a producer whole, it would let the producer watch other
/// producers' activity, so a producer is shown `index(visibleTo:)` instead: the index of the newest event of its
/// own alerts, which moves only when one of them is created or resolved.
extension AlertStore {
    /// The change index as `owner` may see it: the index of the newest event of an alert `owner` created (0 before
    /// there is one), or, for `nil` (callers that see every alert), the change index itself.
    ///
    /// - Parameters:
    ///   - owner: The producer, or `nil` for everyone's changes.
    public func index(visibleTo owner: String?) -> UInt64 {
        guard let owner else { return visibleIndex }
        return eventLog.owners.newest(of: owner)
    }

    /// `list(_:)`, its index as `query.owner` may see it (`index(visibleTo:)`).
    ///
    /// - Parameters:
    ///   - query: Which alerts and how many; its `owner` is also whose index the page shows.
    public func visibleList(_ query: ListQuery) -> AlertPage {
        var page = list(query)
        page.index = index(visibleTo: query.owner)
        return page
    }

    /// Checks an event cursor a caller gave, by the rules that caller sees: for `nil`, those of
    /// `events(after:limit:kinds:presenter:owner:)`; for a producer, its cursor is gone when it is past the newest
    /// event of its own alerts (a cursor from before a restart), or when an event of its own alerts after it has
    /// left the history. Neither rule depends on other producers' changes, except that theirs push its own events
    /// out of the history.
    ///
    /// - Parameters:
    ///   - cursor: The index of the last event the caller has.
    ///   - owner: The producer, or `nil` for callers that see every alert.
    /// - Throws: `AlertStoreError` `historyGone`.
    public func checkCursor(_ cursor: UInt64, visibleTo owner: String?) throws(AlertStoreError) {
        guard let owner else {
            _ = try events(after: cursor, limit: 0)
            return
        }
        let newest = eventLog.owners.newest(of: owner)
        if cursor > newest { throw .ownHistoryGone(cursor: cursor, newest: newest) }
        try checkOwnHistory(after: cursor, of: owner)
    }

    /// - Throws: `AlertStoreError` `historyGone` when an event of `owner`'s alerts after `cursor` has left the
    ///   history, or when `cursor` is below the history's floor (events trimmed before the start, or from before a
    ///   restore): then which of them were the producer's is not known. Cursor 0 is always accepted: it is what the
    ///   producer's list shows before it has an event in the history, and the list's index is a cursor it can follow.
    func checkOwnHistory(after cursor: UInt64, of owner: String) throws(AlertStoreError) {
        let unknown = cursor < historyFloor && cursor != 0
        if unknown || eventLog.owners.dropped(of: owner) > cursor { throw .ownHistoryGone(cursor: cursor, newest: nil) }
    }
}

extension AlertStoreError {
    /// A producer's cursor that is past its own newest event (`newest`), or after which one of its own events was
    /// dropped (`newest` nil); the message names no index but the producer's own.
    static func ownHistoryGone(cursor: UInt64, newest: UInt64?) -> AlertStoreError {
        let message = if let newest {
            "cursor \(cursor) is ahead of the newest event of your alerts (\(newest)); list alerts again"
        } else {
            "events of your alerts after \(cursor) are no longer kept; list alerts again"
        }
        return AlertStoreError(kind: .historyGone, message: message)
    }
}
