import AlertCodec
import AlertCore

/// Reads the `StoreImage` a file holds: the meta row, every alert, the event history and the idempotency keys.
enum ImageReader {
    /// Why reading failed: SQLite, or a row that does not decode.
    enum Failure: Error {
        case sqlite(SQLiteError)
        case decoding(JournalDecodingError)
    }

    /// Reads the image, keeping the most recent `eventHistory` events.
    static func read(_ connection: SQLiteConnection, eventHistory: Int) throws(Failure) -> StoreImage {
        let meta = try prepare(connection, "SELECT epoch, change_index, next_sequence FROM meta WHERE singleton = 1")
        guard try step(meta) else { throw .decoding(JournalDecodingError("the meta row is missing")) }
        var image = StoreImage(
            epoch: meta.text(at: 0),
            changeIndex: UInt64(bitPattern: meta.int64(at: 1)),
            nextSequence: UInt64(bitPattern: meta.int64(at: 2))
        )
        var cache = AlertRowCache()
        image.boxes = try alerts(connection, cache: &cache)
        let oldest = HistoryReferences.floor(changeIndex: image.changeIndex, eventHistory: eventHistory)
        image.events = try events(connection, after: oldest, boxes: image.boxes, cache: &cache)
        // The events read are every one after the index before the first; those up to it are gone (trimmed, or the
        // timeline a restore left), also a producer's, whose cursor the store can then no longer check by the events
        // it drops itself. A journal always keeps its newest event: one with a change index and none was restored
        // from a backup (`SQLiteJournal.restore`), which drops them all.
        image.historyFloor = image.events.first.map { $0.index - 1 } ?? image.changeIndex
        image.idempotency = try keys(connection)
        let rules = try prepare(connection, "SELECT rule FROM rules ORDER BY name")
        while try step(rules) {
            image.rules.append(try decode { () throws(JournalDecodingError) in try AnswerRule(stored: rules.bytes(at: 0)) })
        }
        return image
    }

    /// Every alert, boxed, in ascending sequence order.
    ///
    /// One pass on one thread: reading in sequence ranges on two threads took a third more CPU time (separate
    /// arrays joined at the end) and was no faster on this 2-core machine under load. No `count(*)` first to size
    /// the array: it walks every page of the table (0.1 s for a million alerts), the array's doublings much less.
    private static func alerts(
        _ connection: SQLiteConnection, cache: inout AlertRowCache
    ) throws(Failure) -> [AlertBox] {
        var alerts: [AlertBox] = []
        let rows = try prepare(connection, "SELECT \(AlertRow.columns) FROM alerts ORDER BY sequence")
        while try step(rows) {
            alerts.append(AlertBox(try decode { () throws(JournalDecodingError) in
                try AlertRow.read(from: rows, at: 0, cache: &cache)
            }))
        }
        return alerts
    }

    /// The events with an index above `oldest`, ascending, each with its alert as it showed it: from `alerts`
    /// (`boxes`, in ascending sequence order) or, for an alert retention dropped, from `event_alerts`.
    private static func events(
        _ connection: SQLiteConnection, after oldest: UInt64, boxes: [AlertBox], cache: inout AlertRowCache
    ) throws(Failure) -> [AlertEvent] {
        var dropped: [UInt64: Alert] = [:]
        let kept = try prepare(connection, "SELECT \(AlertRow.columns) FROM event_alerts")
        while try step(kept) {
            let alert = try decode { () throws(JournalDecodingError) in
                try AlertRow.read(from: kept, at: 0, cache: &cache)
            }
            dropped[alert.sequence] = alert
        }
        let rows = try prepare(connection, "SELECT idx, kind, sequence FROM events WHERE idx > ? ORDER BY idx")
        rows.bind(Int64(bitPattern: oldest), at: 1)
        var named: [(index: UInt64, kind: AlertEvent.Kind, sequence: UInt64)] = []
        while try step(rows) {
            guard let kind = AlertEvent.Kind(rawValue: rows.text(at: 1)) else {
                throw .decoding(JournalDecodingError("an event has an unknown kind"))
            }
            named.append((UInt64(bitPattern: rows.int64(at: 0)), kind, UInt64(bitPattern: rows.int64(at: 2))))
        }
        // Newest first, counting each alert's `voted` events after the one at hand: those votes came after it. Every
        // event after one read is read too, so the count holds however much history was trimmed.
        var events: [AlertEvent] = []
        events.reserveCapacity(named.count)
        var votedAfter: [UInt64: Int] = [:]
        for event in named.reversed() {
            guard let alert = alert(event.sequence, in: boxes) ?? dropped[event.sequence] else {
                throw .decoding(JournalDecodingError("an event names an alert the journal does not hold"))
            }
            let later = alert.votes.isEmpty ? 0 : votedAfter[event.sequence, default: 0]
            events.append(AlertEvent(index: event.index, kind: event.kind, alert: EventSnapshot.alert(
                alert, at: event.kind, index: event.index, votedAfter: later)))
            if event.kind == .voted { votedAfter[event.sequence] = later + 1 }
        }
        events.reverse()
        return events
    }

    /// The alert with this sequence number in `boxes` (ascending by sequence), by binary search.
    private static func alert(_ sequence: UInt64, in boxes: [AlertBox]) -> Alert? {
        let position = boxes.firstPosition(notBelow: sequence) { $0.alert.sequence }
        return position < boxes.count && boxes[position].alert.sequence == sequence ? boxes[position].alert : nil
    }

    /// The idempotency keys, by ascending sequence of the alert each created.
    private static func keys(
        _ connection: SQLiteConnection
    ) throws(Failure) -> [(record: IdempotencyRecord, sequence: UInt64)] {
        let rows = try prepare(connection, "SELECT sequence, owner, key, draft FROM idempotency ORDER BY sequence")
        var keys: [(record: IdempotencyRecord, sequence: UInt64)] = []
        while try step(rows) {
            let draft = try decode { () throws(JournalDecodingError) in try AlertDraft(stored: rows.bytes(at: 3)) }
            let owner = rows.text(at: 1)
            let record = IdempotencyRecord(owner: owner.isEmpty ? nil : owner, key: rows.text(at: 2), draft: draft)
            keys.append((record, UInt64(bitPattern: rows.int64(at: 0))))
        }
        return keys
    }

    private static func prepare(_ connection: SQLiteConnection, _ sql: String) throws(Failure) -> SQLiteStatement {
        do throws(SQLiteError) { return try connection.prepare(sql) } catch { throw .sqlite(error) }
    }

    private static func step(_ statement: SQLiteStatement) throws(Failure) -> Bool {
        do throws(SQLiteError) { return try statement.step() } catch { throw .sqlite(error) }
    }

    private static func decode<T>(_ body: () throws(JournalDecodingError) -> T) throws(Failure) -> T {
        do throws(JournalDecodingError) { return try body() } catch { throw .decoding(error) }
    }
}

/// The alert as an event showed it, rebuilt from the alert's row: an event row names its alert rather than holding a
/// copy of it.
///
/// After it is created, an alert changes by its votes (each a `voted` event, but the vote that resolves it, which is
/// its `answered` event), by its escalation steps (each records its event's index), by its result, set once, at its
/// resolution event, and by its webhook delivery, whose attempts start only after that event (`AlertStore.settle` then
/// `startDelivery`). So an event showed the row as it is now, without the escalation steps after it, without the
/// result and the votes after it unless it is the resolution, and with the delivery as it was before any attempt.
enum EventSnapshot {
    /// - Parameters:
    ///   - stored: the alert's row.
    ///   - kind: the event's kind.
    ///   - index: the event's index.
    ///   - votedAfter: how many `voted` events of this alert come after this one.
    static func alert(_ stored: Alert, at kind: AlertEvent.Kind, index: UInt64, votedAfter: Int) -> Alert {
        var alert = stored.before(escalationsAfter: index)
        switch kind {
        case .answered, .dismissed, .expired:
            break
        case .created, .voted, .escalated:
            // Pending then. A quorum alert answered was answered by a vote (the last), without a `voted` event.
            alert.result = nil
            let resolvingVote = stored.result?.resolution == .answered && !stored.votes.isEmpty ? 1 : 0
            alert.votes.removeLast(min(alert.votes.count, votedAfter + resolvingVote))
        }
        alert.delivery = stored.delivery.map { WebhookDelivery(url: $0.url) }
        return alert
    }
}

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
