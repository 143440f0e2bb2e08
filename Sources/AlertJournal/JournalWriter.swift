import AlertCodec
import AlertCore
import CSQLite
import Dispatch
import Foundation
import Locking

/// The write connection and its prepared statements: turns batches of records into one transaction each.
///
/// Used by one thread at a time: `SQLiteJournal.open` builds it, then only the writer thread uses it.
final class JournalWriter {
    let connection: SQLiteConnection
    /// The database file and its log as the journal opened them, once `probe()` made the log: each commit checks
    /// that their names still lead there, so that a journal renamed over or deleted (a backup or a copy written onto
    /// it) is noticed at the next commit instead of losing every later one at the next start.
    private(set) var files: JournalFiles?
    private let path: String
    /// The data dir's mark, raised to the change index of each commit before it is acknowledged.
    let mark: JournalMark
    private let eventHistory: Int
    /// The change index and next sequence as of the last commit; the meta row holds the same.
    private var changeIndex: UInt64
    private var nextSequence: UInt64
    /// Which alerts the events in the history name. After a failed commit it may be ahead of the file, which no
    /// longer matters: the journal writes nothing more.
    private var history: HistoryReferences
    /// The event index through which old events were last deleted. Rows at or below the history's floor are
    /// never read (the image reads above it), so they are deleted in batches of `trimBatch` rather than a few in
    /// every commit: each trim rewrites the table's oldest pages.
    private var trimmed: UInt64 = 0
    /// How far the floor moves between two trims: an eighth of the history (1,250 events by default), at least 1.
    private let trimBatch: UInt64
    /// The JSON of the last alert's buttons and fields, reused while the next alerts have the same.
    private var encoding = AlertRowEncoding()
    private var rowCache = AlertRowCache()

    private let begin: SQLiteStatement
    private let commitStatement: SQLiteStatement
    private let insertAlert: SQLiteStatement
    private let insertEvent: SQLiteStatement
    private let insertKey: SQLiteStatement
    private let resolveAlert: SQLiteStatement
    private let updateDelivery: SQLiteStatement
    private let updateVotes: SQLiteStatement
    private let updateEscalation: SQLiteStatement
    private let deleteAlert: SQLiteStatement
    private let deleteKey: SQLiteStatement
    private let readAlert: SQLiteStatement
    private let keepShownAlert: SQLiteStatement
    private let forgetShownAlert: SQLiteStatement
    private let trimEvents: SQLiteStatement
    private let updateMeta: SQLiteStatement
    private let insertRule: SQLiteStatement
    private let deleteRule: SQLiteStatement

    /// Prepares the statements on `connection`, whose file at `path` holds `image`.
    init(
        connection: SQLiteConnection, path: String, mark: JournalMark, image: StoreImage, eventHistory: Int
    ) throws(SQLiteError) {
        self.connection = connection
        self.path = path
        self.mark = mark
        self.eventHistory = eventHistory
        trimBatch = UInt64(max(1, eventHistory / 8))
        changeIndex = image.changeIndex
        nextSequence = image.nextSequence
        let floor = HistoryReferences.floor(changeIndex: changeIndex, eventHistory: eventHistory)
        // Events at or below the floor that the last run had not trimmed yet: `history` starts from the events above
        // it, so those rows would outlive the alerts they name, which a later, larger --event-history would read.
        let trimEvents = try connection.prepare("DELETE FROM events WHERE idx <= ?")
        trimEvents.bind(Int64(bitPattern: floor), at: 1)
        try trimEvents.run()
        self.trimEvents = trimEvents
        trimmed = floor
        // Rows kept for events the history no longer holds.
        let unshown = try connection.prepare(
            "DELETE FROM event_alerts WHERE sequence NOT IN (SELECT sequence FROM events WHERE idx > ?)")
        unshown.bind(Int64(bitPattern: floor), at: 1)
        try unshown.run()
        let kept = try connection.prepare("SELECT sequence FROM event_alerts")
        var keptSequences: [UInt64] = []
        while try kept.step() { keptSequences.append(UInt64(bitPattern: kept.int64(at: 0))) }
        history = HistoryReferences(
            events: image.events.lazy.map { ($0.index, $0.alert.sequence) },  // those after `floor`
            kept: keptSequences)
        begin = try connection.prepare("BEGIN IMMEDIATE")
        commitStatement = try connection.prepare("COMMIT")
        insertAlert = try connection.prepare(
            "INSERT INTO alerts (\(AlertRow.columns)) VALUES (\(AlertRow.placeholders))")
        insertEvent = try connection.prepare("INSERT INTO events (idx, kind, sequence) VALUES (?, ?, ?)")
        // A key whose alert is gone (dropped in an earlier batch) may be handed out again: the new row replaces it.
        insertKey = try connection.prepare(
            "INSERT OR REPLACE INTO idempotency (sequence, owner, key, draft) VALUES (?, ?, ?, ?)")
        resolveAlert = try connection.prepare("""
            UPDATE alerts SET result = ?, callback = ?, delivery_state = ?, delivery_attempts = ?, \
            delivery_last_error = ?, delivery_last_attempt_at = ?, policy = ? WHERE sequence = ?
            """)
        updateDelivery = try connection.prepare("""
            UPDATE alerts SET callback = ?, delivery_state = ?, delivery_attempts = ?, delivery_last_error = ?, \
            delivery_last_attempt_at = ? WHERE sequence = ?
            """)
        updateVotes = try connection.prepare("UPDATE alerts SET policy = ? WHERE sequence = ?")
        updateEscalation = try connection.prepare("UPDATE alerts SET presenter = ?, policy = ? WHERE sequence = ?")
        deleteAlert = try connection.prepare("DELETE FROM alerts WHERE sequence = ?")
        deleteKey = try connection.prepare("DELETE FROM idempotency WHERE sequence = ?")
        readAlert = try connection.prepare("SELECT \(AlertRow.columns) FROM alerts WHERE sequence = ?")
        keepShownAlert = try connection.prepare(
            "INSERT OR REPLACE INTO event_alerts (\(AlertRow.columns)) VALUES (\(AlertRow.placeholders))")
        forgetShownAlert = try connection.prepare("DELETE FROM event_alerts WHERE sequence = ?")
        updateMeta = try connection.prepare("UPDATE meta SET change_index = ?, next_sequence = ? WHERE singleton = 1")
        insertRule = try connection.prepare("INSERT INTO rules (name, rule) VALUES (?, ?)")
        deleteRule = try connection.prepare("DELETE FROM rules WHERE name = ?")
    }

    /// Writes every record of `batch`, in order, in one transaction, with the trimmed event history and the meta
    /// row; on failure rolls it all back. Then raises the mark to the new change index. Fails, after the transaction,
    /// when the database file's or the log's name no longer means the file the journal writes (what it committed
    /// would be gone at the next start), or when the mark cannot be written.
    func commit(_ batch: [[JournalRecord]]) throws(JournalFailure) {
        let before = (changeIndex, nextSequence)
        do throws(SQLiteError) {
            try begin.run()
            for records in batch {
                for record in records { try apply(record) }
            }
            if changeIndex != before.0 || nextSequence != before.1 {
                let floor = HistoryReferences.floor(changeIndex: changeIndex, eventHistory: eventHistory)
                if floor >= trimmed + trimBatch {
                    trimEvents.bind(Int64(bitPattern: floor), at: 1)
                    try trimEvents.run()
                    for sequence in history.trim(through: floor) {
                        forgetShownAlert.bind(Int64(bitPattern: sequence), at: 1)
                        try forgetShownAlert.run()
                    }
                    trimmed = floor
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
        if let failure = files?.replaced { throw failure }
        guard changeIndex == before.0 || mark.record(changeIndex) else {
            throw JournalFailure(reason: "cannot write the journal's mark \(mark.path): "
                + DataDirectory.errorText())
        }
    }

    /// Why the journal cannot take a commit now, if it cannot: a commit that rewrites the meta row as it is (which
    /// needs room for the write-ahead log, so a full disk fails it), and, under a page cap (`max_page_count`), no
    /// page left to grow into. Run once at open, before the first commit, so that `/healthz` tells at once; then
    /// notes the files the journal writes (`files`).
    func probe() -> JournalFailure? {
        do throws(SQLiteError) {
            let pages = try connection.integer("PRAGMA page_count") ?? 0
            let cap = try connection.integer("PRAGMA max_page_count") ?? .max
            let free = try connection.integer("PRAGMA freelist_count") ?? 0
            if cap - pages + free <= 0 {
                throw SQLiteError(code: SQLITE_FULL, message: "database or disk is full (all \(cap) pages used)")
            }
            try begin.run()
            try connection.execute("UPDATE meta SET next_sequence = next_sequence WHERE singleton = 1")
            try commitStatement.run()
            files = JournalFiles(path: path)
            return nil
        } catch {
            try? connection.execute("ROLLBACK")
            return JournalFailure(reason: "the journal cannot write: \(error.message)")
        }
    }

    private func apply(_ record: JournalRecord) throws(SQLiteError) {
        switch record {
        case .created(let alert, let event, let idempotency):
            AlertRow.bind(alert, to: insertAlert, from: 1, encoding: &encoding)
            try insertAlert.run()
            try insert(event: event, kind: .created, alert.sequence)
            nextSequence = max(nextSequence, alert.sequence + 1)
            if let idempotency {
                insertKey.bind(Int64(bitPattern: alert.sequence), at: 1)
                insertKey.bind(idempotency.owner ?? "", at: 2)
                insertKey.bind(idempotency.key, at: 3)
                insertKey.bind(text: idempotency.draft.storedJSON, at: 4)
                try insertKey.run()
            }
        case .resolved(let alert, let event):
            resolveAlert.bind(text: alert.result?.storedJSON, at: 1)
            AlertRow.bindDelivery(alert.delivery, to: resolveAlert, from: 2)
            // The policy column holds a quorum alert's votes, the resolving one included.
            resolveAlert.bind(text: alert.storedPolicyJSON, at: 7)
            resolveAlert.bind(Int64(bitPattern: alert.sequence), at: 8)
            try resolveAlert.run()
            guard let kind = alert.result.flatMap({ AlertEvent.Kind(rawValue: $0.resolution.rawValue) }) else {
                throw SQLiteError(code: SQLITE_MISUSE, message: "a resolved record has no result")
            }
            try insert(event: event, kind: kind, alert.sequence)
        case .voted(let alert, let event):
            updateVotes.bind(text: alert.storedPolicyJSON, at: 1)
            updateVotes.bind(Int64(bitPattern: alert.sequence), at: 2)
            try updateVotes.run()
            try insert(event: event, kind: .voted, alert.sequence)
        case .escalated(let alert, let event):
            updateEscalation.bind(alert.presenter, at: 1)
            updateEscalation.bind(text: alert.storedPolicyJSON, at: 2)
            updateEscalation.bind(Int64(bitPattern: alert.sequence), at: 3)
            try updateEscalation.run()
            try insert(event: event, kind: .escalated, alert.sequence)
        case .ruleAdded(let rule):
            insertRule.bind(rule.name, at: 1)
            insertRule.bind(text: rule.storedJSON, at: 2)
            try insertRule.run()
        case .ruleRemoved(let name):
            deleteRule.bind(name, at: 1)
            try deleteRule.run()
        case .delivery(let sequence, let delivery):
            AlertRow.bindDelivery(delivery, to: updateDelivery, from: 1)
            updateDelivery.bind(Int64(bitPattern: sequence), at: 6)
            try updateDelivery.run()
        case .dropped(let sequence):
            if history.isShown(sequence) {
                try keepShown(sequence)
                history.keep(sequence)
            }
            deleteAlert.bind(Int64(bitPattern: sequence), at: 1)
            try deleteAlert.run()
            deleteKey.bind(Int64(bitPattern: sequence), at: 1)
            try deleteKey.run()
        }
    }

    /// Copies the row of the alert `sequence`, about to be dropped, to `event_alerts` for the events that still show
    /// it, without its secure texts and values: an event shows neither (`/v1/events` leaves them out), and the copy
    /// outlives the alert by up to `eventHistory` later events.
    private func keepShown(_ sequence: UInt64) throws(SQLiteError) {
        readAlert.bind(Int64(bitPattern: sequence), at: 1)
        defer { readAlert.reset() }
        guard try readAlert.step() else { return }
        var alert: Alert
        do throws(JournalDecodingError) {
            alert = try AlertRow.read(from: readAlert, at: 0, cache: &rowCache)
        } catch {
            throw SQLiteError(code: SQLITE_CORRUPT, message: error.description)
        }
        for field in alert.fields where field.secure {
            alert.fields[field.index].text = ""
            if let values = alert.result?.values, values.indices.contains(field.index) {
                alert.result?.values[field.index] = ""
            }
        }
        AlertRow.bind(alert, to: keepShownAlert, from: 1, encoding: &encoding)
        try keepShownAlert.run()
    }

    private func insert(event index: UInt64, kind: AlertEvent.Kind, _ sequence: UInt64) throws(SQLiteError) {
        insertEvent.bind(Int64(bitPattern: index), at: 1)
        insertEvent.bind(kind.rawValue, at: 2)
        insertEvent.bind(Int64(bitPattern: sequence), at: 3)
        try insertEvent.run()
        history.add(index: index, sequence: sequence)
        changeIndex = max(changeIndex, index)
    }
}

/// The hand-off between `append` (any thread, usually the store's executor) and the writer thread: appends queue
/// under a lock; the writer takes everything queued at once, so batches form while the previous commit runs.
final class CommitQueue: Sendable {
    /// One `append` call.
    struct Entry: Sendable {
        var records: [JournalRecord]
        var committed: @Sendable (JournalFailure?) -> Void
    }

    private struct State {
        var pending: [Entry] = []
        /// The writer waits on `wake`; the append that clears this signals it, once.
        var writerWaiting = false
        /// `close()` was called: the writer finishes what is queued, then exits.
        var closing = false
        /// The writer has exited: appends are refused.
        var closed = false
        /// The failure that stopped writing.
        var failure: JournalFailure?
    }

    private let state = Lock(State())
    private let wake = DispatchSemaphore(value: 0)

    /// The failure that stopped writing, if any.
    var failure: JournalFailure? { state.withLock { $0.failure } }

    /// Queues an entry for the writer; false when the writer has exited.
    func append(_ entry: Entry) -> Bool {
        let (accepted, signal) = state.withLock { state -> (Bool, Bool) in
            guard !state.closed else { return (false, false) }
            state.pending.append(entry)
            let signal = state.writerWaiting
            state.writerWaiting = false
            return (true, signal)
        }
        if signal { wake.signal() }
        return accepted
    }

    /// Everything queued, waiting for some when none is; nil once closing and nothing is left (the writer exits).
    func take() -> [Entry]? {
        while true {
            let (batch, exit) = state.withLock { state -> ([Entry], Bool) in
                guard state.pending.isEmpty else {
                    defer { state.pending = [] }
                    return (state.pending, false)
                }
                if state.closing {
                    state.closed = true
                    return ([], true)
                }
                state.writerWaiting = true
                return ([], false)
            }
            if exit { return nil }
            if !batch.isEmpty { return batch }
            wake.wait()
        }
    }

    /// Records the failure that stops writing (the first one stays).
    func fail(_ failure: JournalFailure) {
        state.withLock { state in
            if state.failure == nil { state.failure = failure }
        }
    }

    /// Tells the writer to finish what is queued and exit; false when already told.
    func close() -> Bool {
        let (first, signal) = state.withLock { state -> (Bool, Bool) in
            guard !state.closing else { return (false, false) }
            state.closing = true
            let signal = state.writerWaiting
            state.writerWaiting = false
            return (true, signal)
        }
        if signal { wake.signal() }
        return first
    }
}

/// One committed transaction, as `SQLiteJournal.observeCommits` reports it.
public struct JournalCommit: Sendable, Equatable {
    /// From `BEGIN IMMEDIATE` to the end of `COMMIT` (the flush included), in seconds.
    public var seconds: Double
    /// How many `append` calls (store turns) the transaction held: the batch size.
    public var appends: Int
    /// How many records it held.
    public var records: Int

    public init(seconds: Double, appends: Int, records: Int) {
        self.seconds = seconds
        self.appends = appends
        self.records = records
    }
}

/// Checkpoints the write-ahead log on a thread and a connection of its own, so that a commit does not wait for one.
///
/// The writer's connection has auto-checkpoint off; its WAL hook calls `walGrew(frames:)` after each commit. Each
/// time the WAL has grown by `passiveFrames` frames, the checkpointer runs a `PASSIVE` checkpoint beside the
/// commits (not after every commit: each checkpoint flushes the database file). SQLite
/// restarts the WAL from its start at the first commit after a checkpoint that copied every frame back; under a
/// load that never pauses the writer is always a few frames ahead, so once the WAL holds `catchUpFrames` the
/// checkpointer copies the last frames with commits held off (`gate`), which takes as long as those few frames.
/// After `idleSeconds` without a commit it runs `TRUNCATE`, which empties the WAL file, and syncs the data dir's
/// mark (which commits write without a sync of their own).
final class Checkpointer: Sendable {
    /// The WAL size, in frames, that starts a passive checkpoint (about 4 MB with 4 KB pages).
    static let passiveFrames: Int32 = 1000
    /// The WAL size, in frames, above which the last frames are copied with commits held off.
    static let catchUpFrames: Int32 = 4000
    /// How long without a commit before the WAL file is truncated.
    static let idleSeconds = 1.0

    private struct State {
        /// The WAL's frames after the last commit (0 after a truncation).
        var frames: Int32 = 0
        /// The WAL's frames when the last passive checkpoint ran (0 after the WAL started over).
        var checkpointed: Int32 = 0
        /// A passive checkpoint was asked for and has not run yet.
        var requested = false
        var stopping = false
        var checkpoints: UInt64 = 0
    }

    private let state = Lock(State())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    /// Held by the writer around each transaction, and here around checkpoints that must not overlap one.
    let gate = Lock(())

    /// Checkpoints run so far.
    var checkpoints: UInt64 { state.withLock { $0.checkpoints } }

    private let mark: JournalMark

    /// Starts the thread, which owns `connection`.
    init(connection: SQLiteConnection, mark: JournalMark) {
        self.mark = mark
        let owned = ConnectionBox(connection)
        let thread = Thread { [self] in
            run(owned.connection)
            owned.connection.close()
            finished.signal()
        }
        thread.name = "alertd-checkpoint"
        thread.start()
    }

    /// Told by the writer's WAL hook after a commit: the WAL now has `frames` frames.
    func walGrew(frames: Int32) {
        let signal = state.withLock { state -> Bool in
            state.frames = frames
            if frames < state.checkpointed { state.checkpointed = 0 }  // the WAL started over
            guard frames >= state.checkpointed + Self.passiveFrames, !state.requested else { return false }
            state.requested = true
            return true
        }
        if signal { wake.signal() }
    }

    /// Stops the thread and waits for it (its connection is then closed).
    func stop() {
        state.withLock { $0.stopping = true }
        wake.signal()
        finished.wait()
    }

    private func run(_ connection: SQLiteConnection) {
        while true {
            let signalled = wake.wait(timeout: .now() + Self.idleSeconds) == .success
            let (stopping, requested, frames) = state.withLock { ($0.stopping, $0.requested, $0.frames) }
            if stopping { return }
            if signalled, requested {
                let (log, _) = checkpoint(connection, SQLITE_CHECKPOINT_PASSIVE)
                state.withLock { $0.checkpointed = max($0.checkpointed, log) }
                // Commits went on meanwhile; past the catch-up size, copy their frames with commits held off.
                if state.withLock({ $0.frames }) >= Self.catchUpFrames {
                    gate.withLock { _ in _ = checkpoint(connection, SQLITE_CHECKPOINT_PASSIVE) }
                }
                state.withLock { $0.requested = false }
            } else if !signalled, frames > 0 {
                gate.withLock { _ in
                    let (log, copied) = checkpoint(connection, SQLITE_CHECKPOINT_TRUNCATE)
                    if log == 0, copied == 0 { state.withLock { $0.frames = 0 } }
                }
                mark.sync()
            }
        }
    }

    /// Runs one checkpoint; returns the frames in the WAL and those copied back (-1, -1 when it failed).
    private func checkpoint(_ connection: SQLiteConnection, _ mode: Int32) -> (log: Int32, copied: Int32) {
        var log: Int32 = -1
        var copied: Int32 = -1
        let code = sqlite3_wal_checkpoint_v2(connection.handle, nil, mode, &log, &copied)
        state.withLock { $0.checkpoints += 1 }
        return code == SQLITE_OK ? (log, copied) : (-1, -1)
    }
}

/// A connection handed to the thread that then owns it.
///
/// `@unchecked Sendable` invariant: after the hand-off only the receiving thread touches `connection` (a
/// `SQLITE_OPEN_NOMUTEX` connection is safe on one thread at a time).
final class ConnectionBox: @unchecked Sendable {
    let connection: SQLiteConnection

    init(_ connection: SQLiteConnection) {
        self.connection = connection
    }
}
