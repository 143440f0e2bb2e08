import AlertModel

/// Sequence numbers in arrival order, for listing the oldest first in O(limit).
///
/// Appends must be increasing. Removal marks a slot dead (a tombstone) after a binary search; dead slots at
/// the front are skipped by moving `head`, and the array is compacted once dead slots outnumber live ones,
/// so every operation is amortized O(log n) and a walk over k live entries skips at most as many dead ones
/// as there are live ones.
struct ArrivalQueue: Sendable {
    /// Marks a dead slot; sequence numbers stay below it.
    private static let deadBit: UInt64 = 1 << 63

    private var slots: [UInt64] = []
    private var head = 0
    private var dead = 0

    /// The number of live entries.
    var count: Int { slots.count - head - dead }

    /// Whether there is no live entry.
    var isEmpty: Bool { count == 0 }

    /// The live entries, oldest first, lazily.
    var live: LazyFilterSequence<ArraySlice<UInt64>> {
        slots[head...].lazy.filter { $0 & Self.deadBit == 0 }
    }

    /// Makes room for `count` live entries in all.
    mutating func reserveCapacity(_ count: Int) {
        slots.reserveCapacity(head + dead + count)
    }

    /// Adds an entry; it must be greater than every entry added before.
    mutating func append(_ sequence: UInt64) {
        precondition(sequence < Self.deadBit && (slots.last.map { $0 & ~Self.deadBit < sequence } ?? true))
        slots.append(sequence)
    }

    /// Adds an entry in its place by sequence (an alert that moved here from another queue); O(n) unless it is the
    /// newest.
    mutating func insert(_ sequence: UInt64) {
        guard let last = slots.last, last & ~Self.deadBit > sequence else { return append(sequence) }
        let slot = slots[head...].firstPosition(notBelow: sequence) { $0 & ~Self.deadBit }
        if slots[slot] & ~Self.deadBit == sequence {
            if slots[slot] & Self.deadBit != 0 {
                slots[slot] = sequence
                dead -= 1
            }
            return
        }
        slots.insert(sequence, at: slot)
    }

    /// Removes an entry; returns whether it was live.
    @discardableResult
    mutating func remove(_ sequence: UInt64) -> Bool {
        guard let slot = position(of: sequence), slots[slot] & Self.deadBit == 0 else { return false }
        slots[slot] |= Self.deadBit
        dead += 1
        while head < slots.count && slots[head] & Self.deadBit != 0 {
            head += 1
            dead -= 1
        }
        if head == slots.count {
            slots.removeAll(keepingCapacity: slots.count <= 1024)
            head = 0
        } else if head + dead > count {
            slots = slots[head...].filter { $0 & Self.deadBit == 0 }
            head = 0
            dead = 0
        }
        return true
    }

    /// Whether an entry is live.
    func contains(_ sequence: UInt64) -> Bool {
        guard let slot = position(of: sequence) else { return false }
        return slots[slot] & Self.deadBit == 0
    }

    /// The slot holding `sequence`, live or dead, by binary search.
    private func position(of sequence: UInt64) -> Int? {
        let slot = slots[head...].firstPosition(notBelow: sequence) { $0 & ~Self.deadBit }
        return slot < slots.count && slots[slot] & ~Self.deadBit == sequence ? slot : nil
    }
}

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

extension RandomAccessCollection where Index == Int {
    /// The first position whose element's key is not below `key`, in a collection ascending by that key (`endIndex`
    /// when every key is below it): a binary search.
    @inlinable
    public func firstPosition(notBelow key: UInt64, by keyOf: (Element) -> UInt64) -> Int {
        var low = startIndex
        var high = endIndex
        while low < high {
            let middle = low + (high - low) / 2
            if keyOf(self[middle]) < key { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
