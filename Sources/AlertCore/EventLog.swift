import AlertModel

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
