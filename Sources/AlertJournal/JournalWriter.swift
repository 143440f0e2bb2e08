import AlertCodec
import AlertCore
import CSQLite

/// The write connection and its prepared statements: turns batches of records into one transaction each.
///
/// Used by one thread at a time: `SQLiteJournal.open` builds it, then only the writer thread uses it.
final class JournalWriter {
    let connection: SQLiteConnection
    private let eventHistory: UInt64
    /// The change index and next sequence as of the last commit; the meta row holds the same.
    private var changeIndex: UInt64
    private var nextSequence: UInt64

    private let begin: SQLiteStatement
    private let commitStatement: SQLiteStatement
    private let insertAlert: SQLiteStatement
    private let insertEvent: SQLiteStatement
    private let insertKey: SQLiteStatement
    private let resolveAlert: SQLiteStatement
    private let updateDelivery: SQLiteStatement
    private let deleteAlert: SQLiteStatement
    private let deleteKey: SQLiteStatement
    private let trimEvents: SQLiteStatement
    private let updateMeta: SQLiteStatement

    /// Prepares the statements on `connection`, whose file holds `image`.
    init(connection: SQLiteConnection, image: StoreImage, eventHistory: Int) throws(SQLiteError) {
        self.connection = connection
        self.eventHistory = UInt64(max(1, eventHistory))
        changeIndex = image.changeIndex
        nextSequence = image.nextSequence
        begin = try connection.prepare("BEGIN IMMEDIATE")
        commitStatement = try connection.prepare("COMMIT")
        insertAlert = try connection.prepare(
            "INSERT INTO alerts (\(AlertRow.columns)) VALUES (\(AlertRow.placeholders))")
        insertEvent = try connection.prepare(
            "INSERT INTO events (idx, kind, \(AlertRow.columns)) VALUES (?, ?, \(AlertRow.placeholders))")
        // A key whose alert is gone (dropped in an earlier batch) may be handed out again: the new row replaces it.
        insertKey = try connection.prepare(
            "INSERT OR REPLACE INTO idempotency (sequence, owner, key, draft) VALUES (?, ?, ?, ?)")
        resolveAlert = try connection.prepare("""
            UPDATE alerts SET result = ?, callback = ?, delivery_state = ?, delivery_attempts = ?, \
            delivery_last_error = ?, delivery_last_attempt_at = ? WHERE sequence = ?
            """)
        updateDelivery = try connection.prepare("""
            UPDATE alerts SET callback = ?, delivery_state = ?, delivery_attempts = ?, delivery_last_error = ?, \
            delivery_last_attempt_at = ? WHERE sequence = ?
            """)
        deleteAlert = try connection.prepare("DELETE FROM alerts WHERE sequence = ?")
        deleteKey = try connection.prepare("DELETE FROM idempotency WHERE sequence = ?")
        trimEvents = try connection.prepare("DELETE FROM events WHERE idx <= ?")
        updateMeta = try connection.prepare("UPDATE meta SET change_index = ?, next_sequence = ? WHERE singleton = 1")
    }

    /// Writes every record of `batch`, in order, in one transaction, with the trimmed event history and the meta
    /// row; on failure rolls it all back.
    func commit(_ batch: [[JournalRecord]]) throws(JournalFailure) {
        let before = (changeIndex, nextSequence)
        do throws(SQLiteError) {
            try begin.run()
            for records in batch {
                for record in records { try apply(record) }
            }
            if changeIndex != before.0 || nextSequence != before.1 {
                if changeIndex > eventHistory {
                    trimEvents.bind(Int64(bitPattern: changeIndex - eventHistory), at: 1)
                    try trimEvents.run()
                }
                updateMeta.bind(Int64(bitPattern: changeIndex), at: 1)
                updateMeta.bind(Int64(bitPattern: nextSequence), at: 2)
                try updateMeta.run()
            }
            try commitStatement.run()
        } catch {
            try? connection.execute("ROLLBACK")
            (changeIndex, nextSequence) = before
            throw JournalFailure(reason: "the journal could not commit: \(error.message)")
        }
    }

    private func apply(_ record: JournalRecord) throws(SQLiteError) {
        switch record {
        case .created(let alert, let event, let idempotency):
            let encoded = AlertRow.Encoded(alert)
            AlertRow.bind(alert, encoded, to: insertAlert, from: 1)
            try insertAlert.run()
            try insert(event: event, kind: .created, alert, encoded)
            nextSequence = max(nextSequence, alert.sequence + 1)
            if let idempotency {
                insertKey.bind(Int64(bitPattern: alert.sequence), at: 1)
                insertKey.bind(idempotency.owner ?? "", at: 2)
                insertKey.bind(idempotency.key, at: 3)
                insertKey.bind(text: idempotency.draft.storedJSON, at: 4)
                try insertKey.run()
            }
        case .resolved(let alert, let event):
            let encoded = AlertRow.Encoded(alert)
            resolveAlert.bind(text: encoded.result, at: 1)
            AlertRow.bindDelivery(alert.delivery, to: resolveAlert, from: 2)
            resolveAlert.bind(Int64(bitPattern: alert.sequence), at: 7)
            try resolveAlert.run()
            guard let kind = alert.result.flatMap({ AlertEvent.Kind(rawValue: $0.resolution.rawValue) }) else {
                throw SQLiteError(code: SQLITE_MISUSE, message: "a resolved record has no result")
            }
            try insert(event: event, kind: kind, alert, encoded)
        case .delivery(let sequence, let delivery):
            AlertRow.bindDelivery(delivery, to: updateDelivery, from: 1)
            updateDelivery.bind(Int64(bitPattern: sequence), at: 6)
            try updateDelivery.run()
        case .dropped(let sequence):
            deleteAlert.bind(Int64(bitPattern: sequence), at: 1)
            try deleteAlert.run()
            deleteKey.bind(Int64(bitPattern: sequence), at: 1)
            try deleteKey.run()
        }
    }

    private func insert(
        event index: UInt64, kind: AlertEvent.Kind, _ alert: Alert, _ encoded: AlertRow.Encoded
    ) throws(SQLiteError) {
        insertEvent.bind(Int64(bitPattern: index), at: 1)
        insertEvent.bind(kind.rawValue, at: 2)
        AlertRow.bind(alert, encoded, to: insertEvent, from: 3)
        try insertEvent.run()
        changeIndex = max(changeIndex, index)
    }
}
