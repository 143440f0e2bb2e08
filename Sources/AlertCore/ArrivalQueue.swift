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
