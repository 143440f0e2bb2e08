import AlertModel

extension AlertStore {
    /// Kept events after `cursor`, oldest first, for resuming an event stream without a gap.
    ///
    /// - Parameters:
    ///   - cursor: The index of the last event the caller has (0 for "from the start").
    ///   - limit: The most events returned.
    ///   - kinds: Only these kinds (all when empty).
    ///   - presenter: Only alerts addressed to this presenter (all when `nil`).
    ///   - owner: Only alerts created by this owner (everyone's when `nil`).
    /// - Returns: The events, and the change index they were read at.
    /// - Throws: `AlertStoreError` `historyGone` when events after `cursor` were already dropped (with `owner`:
    ///   events of that owner's alerts), or when `cursor` is ahead of the store (a cursor from before a restart):
    ///   the caller must re-list.
    public func events(
        after cursor: UInt64, limit: Int = 1000, kinds: Set<AlertEvent.Kind> = [], presenter: String? = nil,
        owner: String? = nil
    ) throws(AlertStoreError) -> (events: [AlertEvent], index: UInt64) {
        // Only committed events are shown: a crash cannot take them back.
        let head = visibleIndex
        if cursor > head {
            throw .historyGone(cursor: cursor, oldest: eventLog.oldestIndex, current: head)
        }
        if let owner {
            try checkOwnHistory(after: cursor, of: owner)
        } else if cursor < head, cursor < max(historyFloor, (eventLog.oldestIndex ?? 1) - 1) {
            // Events after the cursor are gone: trimmed before the start or from before a restore (the floor), or
            // dropped from the history since.
            throw .historyGone(cursor: cursor, oldest: eventLog.oldestIndex, current: head)
        }
        let events = eventLog.events(after: cursor, limit: limit) { event in
            event.index <= head && (kinds.isEmpty || kinds.contains(event.kind))
                && (presenter == nil || event.alert.presenter == presenter) && (owner == nil || event.alert.owner == owner)
        }
        return (events, head)
    }
}
