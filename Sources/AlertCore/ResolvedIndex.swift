import AlertModel

/// The resolved alerts a store keeps: in resolution order (to drop the oldest) and by sequence (to list).
struct ResolvedIndex: Sendable {
    /// A resolved alert and when it was resolved.
    struct Entry: Sendable, Equatable {
        var sequence: UInt64
        var instant: ContinuousClock.Instant
    }

    /// Entries in resolution order from `head` on.
    private var order: [Entry] = []
    private var head = 0
    /// Sequence numbers, ascending.
    private(set) var bySequence: [UInt64] = []

    /// The number of entries.
    var count: Int { bySequence.count }

    /// The entry resolved longest ago.
    var oldest: Entry? { head < order.count ? order[head] : nil }

    /// Adds an entry; instants must not decrease from one call to the next.
    mutating func insert(_ sequence: UInt64, at instant: ContinuousClock.Instant) {
        order.append(Entry(sequence: sequence, instant: instant))
        bySequence.insert(sequence, at: insertionPoint(of: sequence))
    }

    /// Removes and returns the entry resolved longest ago.
    mutating func removeOldest() -> Entry? {
        guard let entry = oldest else { return nil }
        head += 1
        if head == order.count {
            order.removeAll(keepingCapacity: true)
            head = 0
        } else if head > order.count / 2 {
            order.removeFirst(head)
            head = 0
        }
        let point = insertionPoint(of: entry.sequence)
        if point < bySequence.count && bySequence[point] == entry.sequence {
            bySequence.remove(at: point)
        }
        return entry
    }

    /// The first position whose value is not below `sequence`.
    private func insertionPoint(of sequence: UInt64) -> Int {
        bySequence.firstPosition(notBelow: sequence) { $0 }
    }
}
