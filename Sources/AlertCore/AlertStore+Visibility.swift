import AlertModel

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
