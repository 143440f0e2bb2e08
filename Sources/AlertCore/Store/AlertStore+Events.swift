
extension AlertStore {
    /// Kept events after `cursor`, oldest first, for resuming an event stream without a gap.
    ///
    /// - Parameters:
    ///   - cursor: The index of the last event the caller has (0 for "from the start").
    ///   - limit: The most events returned.
    ///   - kinds: Only these kinds (all when empty).
    ///   - presenter: Only alerts addressed to this presenter, and `escalated` events of alerts that left it (all
    ///     when `nil`).
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
                && (presenter == nil || event.alert.presenter == presenter
                    || (event.kind == .escalated && event.alert.escalated.last?.from == presenter))
                && (owner == nil || event.alert.owner == owner)
        }
        return (events, head)
    }
}

/// The most recent events, oldest first, in a ring of fixed capacity.
struct EventLog {
    private var ring: [AlertEvent] = []
    private var start = 0
    let capacity: Int
    /// Each owner's newest event and newest dropped event.
    private(set) var owners = OwnerMarks()

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The index of the oldest event kept, or nil when none is.
    var oldestIndex: UInt64? { ring.isEmpty ? nil : ring[start].index }

    mutating func append(_ event: AlertEvent) {
        owners.appended(event)
        if ring.count < capacity {
            ring.append(event)
        } else {
            owners.dropped(ring[start])
            ring[start] = event
            start = (start + 1) % capacity
        }
    }

    /// Up to `limit` kept events with an index above `cursor` that pass `filter`, oldest first.
    func events(after cursor: UInt64, limit: Int, where filter: (AlertEvent) -> Bool) -> [AlertEvent] {
        guard let oldest = oldestIndex, !ring.isEmpty else { return [] }
        // Indexes are consecutive, so the first wanted event sits at a computable offset.
        let skip = cursor >= oldest ? Int(cursor - oldest + 1) : 0
        var found: [AlertEvent] = []
        var offset = skip
        while offset < ring.count, found.count < limit {
            let event = ring[(start + offset) % ring.count]
            if filter(event) { found.append(event) }
            offset += 1
        }
        return found
    }
}

/// Per owner (a producer's token name), the index of its newest event and of its newest event the history has
/// dropped: what the API needs to show a producer an index that moves only with its own alerts, and to tell
/// whether a producer's cursor lost any of its own events. Alerts without an owner leave no mark.
struct OwnerMarks {
    private var marks: [String: (newest: UInt64, dropped: UInt64)] = [:]

    /// Notes an event appended to the history.
    mutating func appended(_ event: AlertEvent) {
        guard let owner = event.alert.owner else { return }
        marks[owner, default: (0, 0)].newest = event.index
    }

    /// Notes an event the history dropped to make room.
    mutating func dropped(_ event: AlertEvent) {
        guard let owner = event.alert.owner else { return }
        marks[owner, default: (0, 0)].dropped = event.index
    }

    /// The index of `owner`'s newest event; 0 when it has none.
    func newest(of owner: String) -> UInt64 { marks[owner]?.newest ?? 0 }

    /// The index of `owner`'s newest event that the history no longer holds; 0 when none.
    func dropped(of owner: String) -> UInt64 { marks[owner]?.dropped ?? 0 }
}

/// One change of the store: an alert was created, got a vote, escalated or resolved. Its `index` is the change
/// index the change produced, so events are totally ordered and gap-free.
public struct AlertEvent: Sendable, Equatable {
    /// What happened.
    public enum Kind: String, Sendable, CaseIterable {
        case created, answered, dismissed, expired
        /// A responder voted on a quorum alert; it is still pending.
        case voted
        /// A pending alert took its next escalation step: it moved to another presenter (`alert.escalated` says
        /// from where) and may be answered by more responders.
        case escalated

        /// The event a resolution produces.
        public init(_ resolution: Resolution) {
            switch resolution {
            case .answered: self = .answered
            case .dismissed: self = .dismissed
            case .expired: self = .expired
            }
        }
    }

    /// The change index after this change.
    public var index: UInt64
    /// What happened.
    public var kind: Kind
    /// The alert just after the change.
    public var alert: Alert

    /// Creates an event.
    /// - Parameters:
    ///   - index: The change index after the change.
    ///   - kind: What happened.
    ///   - alert: The alert just after the change.
    public init(index: UInt64, kind: Kind, alert: Alert) {
        self.index = index
        self.kind = kind
        self.alert = alert
    }
}
