import AlertCore
import AlertModel

/// Which alerts the events in the history name, so that the row of an alert retention dropped is kept (in
/// `event_alerts`) exactly as long as an event in the history shows it.
///
/// Used by the writer thread only. Events are added in index order, and the history is trimmed from its oldest end,
/// so the events form a queue.
struct HistoryReferences {
    /// The sequence number each event in the history names, by event index.
    private var events = KeyedQueue<UInt64>()
    /// The newest event in the history of each alert that has one, by sequence number.
    private var newest: [UInt64: UInt64] = [:]
    /// The dropped alerts whose rows are kept in `event_alerts`.
    private var kept: Set<UInt64> = []

    /// The newest event index a history of `eventHistory` events no longer holds once the change index is
    /// `changeIndex` (0: it holds them all).
    static func floor(changeIndex: UInt64, eventHistory: Int) -> UInt64 {
        let kept = UInt64(max(1, eventHistory))
        return changeIndex > kept ? changeIndex - kept : 0
    }

    /// Starts from the events in the history, oldest first, and the sequence numbers in `event_alerts`.
    init(events: some Sequence<(index: UInt64, sequence: UInt64)>, kept: some Sequence<UInt64>) {
        for event in events { add(index: event.index, sequence: event.sequence) }
        self.kept = Set(kept)
    }

    /// An event was written (its index is above every earlier one's).
    mutating func add(index: UInt64, sequence: UInt64) {
        events.append(sequence, key: index)
        newest[sequence] = index
    }

    /// Whether an event in the history shows the alert with this sequence number.
    func isShown(_ sequence: UInt64) -> Bool {
        newest[sequence] != nil
    }

    /// The dropped alert's row was copied to `event_alerts`.
    mutating func keep(_ sequence: UInt64) {
        kept.insert(sequence)
    }

    /// Forgets the events with an index up to `floor`; returns the kept alerts no event in the history shows any
    /// more, whose rows can go.
    mutating func trim(through floor: UInt64) -> [UInt64] {
        var released: [UInt64] = []
        events.removeThrough(floor) { index, sequence in
            guard newest[sequence] == index else { return }
            newest[sequence] = nil
            if kept.remove(sequence) != nil { released.append(sequence) }
        }
        return released
    }
}
