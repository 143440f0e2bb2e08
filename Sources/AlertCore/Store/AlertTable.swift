import Foundation
import Locking

/// Every kept alert, by sequence number and by id, behind a mutex.
///
/// The store's actor is the only writer. Readers that need no waiting (`GET` of one alert)
/// read it directly from any thread, so a plain read costs a lock, not an actor hop and a
/// suspended connection.
final class AlertTable: Sendable {
    private struct Storage {
        /// Boxed: an `Alert` is 256 bytes, and a dictionary keeps up to twice as many slots as
        /// entries; boxes make a slot 8 bytes (about 250 MB less at 1M pending alerts).
        var records: [UInt64: AlertBox] = [:]
        /// The id index: packed ids (every generated id), and longer ones, if any, by their text.
        var sequences: [PackedID: UInt64] = [:]
        var longSequences: [AlertID: UInt64] = [:]

        /// The sequence number of the alert with this id.
        subscript(id id: AlertID) -> UInt64? {
            get {
                if let key = PackedID(id) { return sequences[key] }
                return longSequences[id]
            }
            set {
                if let key = PackedID(id) { sequences[key] = newValue } else { longSequences[id] = newValue }
            }
        }

        /// Maps the id to `sequence` unless the id is taken; false, changing nothing, when it is.
        mutating func claim(_ id: AlertID, for sequence: UInt64) -> Bool {
            if let key = PackedID(id) {
                return Self.claim(key, for: sequence, in: &sequences)
            }
            return Self.claim(id, for: sequence, in: &longSequences)
        }

        /// One lookup of the key, to insert it or to find it taken: the default subscript's `modify` inserts
        /// `sequence` when the key is new, and sequence numbers are never reused, so finding any other value means
        /// the key was taken.
        private static func claim<Key: Hashable>(
            _ key: Key, for sequence: UInt64, in index: inout [Key: UInt64]
        ) -> Bool {
            func value(_ slot: inout UInt64) -> UInt64 { slot }
            return value(&index[key, default: sequence]) == sequence
        }
    }

    private let storage = Lock(Storage())

    /// The alert with this sequence number.
    subscript(sequence: UInt64) -> Alert? {
        storage.withLock { $0.records[sequence]?.alert }
    }

    /// The sequence number and alert for an id.
    func record(_ id: AlertID) -> (sequence: UInt64, alert: Alert)? {
        storage.withLock { storage in
            guard let sequence = storage[id: id], let alert = storage.records[sequence]?.alert else {
                return nil
            }
            return (sequence, alert)
        }
    }

    /// Adds a new alert unless its id is taken, in one lookup of the id.
    /// - Returns: false, changing nothing, when another alert has the id.
    func insertNew(_ alert: Alert) -> Bool {
        insertNew(AlertBox(alert))
    }

    /// Adds a new boxed alert unless its id is taken (a restore: the box is kept as it is).
    func insertNew(_ box: AlertBox) -> Bool {
        storage.withLock { storage in
            guard storage.claim(box.alert.id, for: box.alert.sequence) else { return false }
            storage.records[box.alert.sequence] = box
            return true
        }
    }

    /// Fills an empty table with restored boxes, each unless an earlier box has its id (as `insertNew(_:)` one by
    /// one would). Each insertion is a cache miss or two in a dictionary of a million entries, so the two
    /// dictionaries fill at the same time: the records on a thread of their own, the id index on this one.
    func restore(_ boxes: [AlertBox]) {
        let records = ThreadWork {
            var records: [UInt64: AlertBox] = [:]
            records.reserveCapacity(boxes.count)
            for box in boxes { records[box.alert.sequence] = box }
            return records
        }
        storage.withLock { storage in
            precondition(storage.records.isEmpty, "a restore into a table that has alerts")
            storage.sequences.reserveCapacity(boxes.count)
            var taken: [UInt64] = []
            for box in boxes where !storage.claim(box.alert.id, for: box.alert.sequence) {
                taken.append(box.alert.sequence)
            }
            storage.records = records.take()
            for sequence in taken { storage.records[sequence] = nil }
        }
    }

    /// The alerts with these sequence numbers, in order, skipping any gone.
    func alerts(_ sequences: [UInt64]) -> [Alert] {
        storage.withLock { storage in sequences.compactMap { storage.records[$0]?.alert } }
    }

    /// Replaces the alert with the same sequence number (and id) by its new state: the store's updates of an alert
    /// it read from here. New alerts go in with `insertNew(_:)`, which refuses a taken id.
    func store(_ alert: Alert) {
        storage.withLock { storage in
            // The id already maps to this sequence (both callers read the alert from here, in the same actor turn):
            // writing the index again would hash the id for nothing on every answer.
            assert(storage[id: alert.id] == alert.sequence, "store(_:) replaces; new alerts go in with insertNew(_:)")
            storage.records[alert.sequence] = AlertBox(alert)
        }
    }

    /// Forgets an alert.
    @discardableResult
    func remove(_ sequence: UInt64) -> Alert? {
        storage.withLock { storage in
            guard let alert = storage.records.removeValue(forKey: sequence)?.alert else { return nil }
            if storage[id: alert.id] == sequence { storage[id: alert.id] = nil }  // never another alert's entry
            return alert
        }
    }
}

/// One alert on the heap; replaced, never mutated.
///
/// `AlertTable` keeps its alerts boxed (an `Alert` is 256 bytes, a box reference 8), and a `StoreImage` hands its
/// alerts over boxed, so a restore puts the journal's boxes into the table as they are instead of copying each alert.
public final class AlertBox: Sendable {
    public let alert: Alert

    public init(_ alert: Alert) {
        self.alert = alert
    }
}

/// An alert id of up to 23 UTF-8 bytes packed with its length into three words: the key of `AlertTable`'s id
/// index.
///
/// A `String` key costs a dictionary a pointer chase and a `memcmp` for every bucket it probes (ids are all 22
/// bytes long, so lengths never tell two apart), and SipHash over heap bytes on every insert and rehash. perf put
/// the id index at a third of a create's time in the store. Three words compare and hash inline.
struct PackedID: Hashable, Sendable {
    private let words: (UInt64, UInt64, UInt64)

    /// The most UTF-8 bytes an id may have to be packed (generated ids have 22).
    static let capacity = 23

    /// Packs `id`, or nil when it is longer than `capacity` bytes.
    init?(_ id: AlertID) {
        var words: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var text = id.rawValue
        let packed = text.withUTF8 { bytes -> Bool in
            guard bytes.count <= Self.capacity else { return false }
            withUnsafeMutableBytes(of: &words) { raw in
                raw.copyMemory(from: UnsafeRawBufferPointer(bytes))
                raw[Self.capacity] = UInt8(bytes.count)
            }
            return true
        }
        guard packed else { return nil }
        self.words = words
    }

    static func == (lhs: PackedID, rhs: PackedID) -> Bool {
        lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 && lhs.words.2 == rhs.words.2
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
    }
}

/// Work run on a thread of its own while the caller does other work, and its result, taken once it is done: a restore
/// fills the table's dictionaries this way.
///
/// `@unchecked Sendable` invariant: `result` is written by the thread only, before it signals `done`; then read and
/// cleared by the one caller of `take()` only.
final class ThreadWork<Result>: @unchecked Sendable {
    private var result: Result?
    private let done = DispatchSemaphore(value: 0)

    /// Starts `work` on a new thread.
    init(_ work: @escaping @Sendable () -> Result) {
        let thread = Thread { [self] in
            result = work()
            done.signal()
        }
        thread.start()
    }

    /// The result, once the work is done, handed over: this object keeps no reference to it, so that a dictionary
    /// it returned changes afterwards without a copy. Call it once.
    func take() -> Result {
        done.wait()
        defer { result = nil }
        return result!
    }
}

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
