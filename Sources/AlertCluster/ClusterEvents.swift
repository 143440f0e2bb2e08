import AlertCodec
import AlertCore

/// Reading what the cluster committed: events after an index, and the image a starting instance loads.
enum ClusterEvents {
    /// The most events one read returns; a longer catch-up reads again.
    static let pageSize = 1000

    /// The committed head: the index of the last event.
    static func head(_ connection: PGConnection) throws(PGError) -> UInt64 {
        try connection.execute("SELECT head FROM alertd_cluster WHERE id = 1").first?.first??.uint64 ?? 0
    }

    /// Checks on a new connection that the database still holds what the store has: the cluster's `epoch`, a head
    /// at or past the feed's, and the feed's last event as it was. Otherwise the feed diverges for good.
    ///
    /// - Throws: `PGError` when the database cannot be read, or does not hold what the store has.
    static func verify(_ connection: PGConnection, feed: StoreFeed, epoch: String) throws(PGError) {
        let known = feed.queuedHead
        let last = feed.lastEvent
        guard let row = try connection.execute("SELECT head, epoch FROM alertd_cluster WHERE id = 1").first,
              let head = row[0]?.uint64 else { throw feed.diverge("alertd_cluster is empty") }
        guard row[1] == epoch else { throw feed.diverge("its epoch is \(row[1] ?? "none"), not \(epoch)") }
        try feed.check(head: head, known: known)
        guard let last, last.index <= head else { return }
        let found = try connection.execute(PGStatement(
            "SELECT idx, kind, alert FROM alertd_events WHERE idx = $1", [String(last.index)],
            name: "alertd_event_at"), reading: event)
        guard let event = found.first else { return }  // pruned: nothing to compare
        guard event.kind == last.kind, event.alert.id == last.alert.id else {
            throw feed.diverge("its event \(last.index) is \(event.kind.rawValue) \(event.alert.id), not "
                + "\(last.kind.rawValue) \(last.alert.id)")
        }
    }

    /// Events with an index in `after + 1 ... through`, ascending (at most `pageSize`), with their secure values.
    static func read(_ connection: PGConnection, after: UInt64, through: UInt64) throws(PGError) -> [AlertEvent] {
        try restoringSecureValues(connection.execute(PGStatement(
            "SELECT idx, kind, alert FROM alertd_events WHERE idx > $1 AND idx <= $2 ORDER BY idx LIMIT \(pageSize)",
            [String(after), String(through)], name: "alertd_events_after"), reading: event), connection)
    }

    /// `events` with the secure values their rows withheld, from the alerts' rows (in one read). The rows are there:
    /// retention keeps an alert's row while a kept event withholds its values (`CommitWriter.prune`).
    private static func restoringSecureValues(
        _ events: [AlertEvent], _ connection: PGConnection
    ) throws(PGError) -> [AlertEvent] {
        let ids = Set(events.filter(\.alert.withholdsSecureValues).map(\.alert.id.rawValue))
        guard !ids.isEmpty else { return events }
        var full: [String: Alert] = [:]
        let array = "{" + ids.sorted().joined(separator: ",") + "}"  // ids are base64url: nothing to quote
        for row in try connection.execute(PGStatement(
            "SELECT id, alert FROM alertd_alerts WHERE id = ANY($1::text[])", [array], name: "alertd_alerts_by_id")) {
            if let id = row[0], let text = row[1] { full[id] = try Alert.decoding(text) }
        }
        return events.map { event in
            guard event.alert.withholdsSecureValues, let kept = full[event.alert.id.rawValue] else { return event }
            var restored = event
            restored.alert = event.alert.restoringSecureValues(from: kept)
            return restored
        }
    }

    /// The event of a row of `idx, kind, alert`, its alert read from the row's bytes.
    static func event(_ row: PGRow) throws(PGError) -> AlertEvent {
        guard let index = row.text(0).flatMap({ UInt64($0) }), let kind = row.text(1).flatMap(AlertEvent.Kind.init),
              let text = row[2] else { throw PGError("an event row is damaged") }
        return AlertEvent(index: index, kind: kind, alert: try Alert.decoding(text))
    }

    /// What the database holds now, in one snapshot: the head, the cluster's identity, every pending alert and the
    /// resolved ones within `retention` (by arrival), and the last `history` events.
    static func image(_ connection: PGConnection, retention: Duration, history: Int) throws(PGError) -> StoreImage {
        try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        defer { _ = try? connection.execute("COMMIT") }
        try connection.execute("SET LOCAL statement_timeout = 0")  // a large image takes its time (locks do not)
        guard let cluster = try connection.execute("SELECT head, epoch FROM alertd_cluster WHERE id = 1").first,
              let head = cluster[0]?.uint64, let epoch = cluster[1] else { throw PGError("alertd_cluster is empty") }
        let since = StoredTime.milliseconds(.now) - retention.components.seconds * 1000
        var boxes: [AlertBox] = []
        for row in try connection.execute(
            "SELECT alert FROM alertd_alerts WHERE state = 'pending' OR resolved_at > $1 ORDER BY sequence",
            [String(since)]) {
            guard let text = row[0] else { continue }
            boxes.append(AlertBox(try Alert.decoding(text)))
        }
        var events: [AlertEvent] = []
        var after = head > UInt64(history) ? head - UInt64(history) : 0
        while after < head {
            let page = try read(connection, after: after, through: head)
            guard let last = page.last else { break }
            events += page
            after = last.index
        }
        var image = StoreImage(epoch: epoch, boxes: boxes, events: events, changeIndex: head, nextSequence: head + 1)
        image.rules = try AnswerRule.reading(connection)
        return image
    }
}
