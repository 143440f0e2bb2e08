import AlertCore
import CSQLite
import Foundation

extension SQLiteJournal {
    /// The environment variable that caps the database at this many pages: a testing aid that makes a full disk
    /// (`SQLITE_FULL` at commit) without filling one.
    public static let maxPageCountVariable = "ALERTD_SQLITE_MAX_PAGE_COUNT"

    /// Opens the journal in `directory`, creating both when new, and reads back what it holds.
    ///
    /// Makes the directory (mode 0700) when missing, and refuses one that is not alertd's alone (`DataDirectory`);
    /// takes `DIR/alertd.lock` (an exclusive `flock` with this process's pid in it); opens `DIR/alertd.sqlite3`,
    /// migrating an older schema; makes the instance epoch and `DIR/alertd.mark` on first use; then starts the
    /// writer and checkpoint threads. A file that is not an SQLite database, is damaged, is another program's, or has
    /// a newer schema is refused and left untouched, and so is a journal that is gone, in parts, or behind its mark
    /// (`JournalMark`). A journal that cannot write (a full disk) opens failed: reads go on, writes are refused.
    ///
    /// - Parameters:
    ///   - directory: The data directory.
    ///   - eventHistory: How many recent events the image holds (the store's `eventHistory`); older ones are
    ///     deleted as new ones commit.
    ///   - maxPageCount: Caps the database at this many pages (testing only: a full disk on demand); `nil` reads
    ///     `ALERTD_SQLITE_MAX_PAGE_COUNT`, and without it there is no cap.
    /// - Returns: The journal, writing, and the image to restore the store from.
    /// - Throws: `JournalOpenError` saying what is wrong and what to do.
    public static func open(
        directory: String, eventHistory: Int, maxPageCount: Int? = nil
    ) throws(JournalOpenError) -> (SQLiteJournal, StoreImage) {
        try DataDirectory.prepare(directory)
        let lock = try DataDirectoryLock(directory: directory)
        let path = DataDirectory.databasePath(directory)
        for file in DataDirectory.journalPaths(directory) { try DataDirectory.checkFile(file) }
        try DataDirectory.checkFile(JournalMark.path(directory), singleName: true)
        let mark = try JournalMark.read(directory)
        let opening = OpeningFile(path: path, directory: directory, mark: mark)
        let isNew = try opening.isNew()
        // Before the file exists: a start that fails or is killed before it wrote the journal (a full disk) leaves
        // an empty file, which the next start then knows for one of its own.
        if isNew, mark == nil { try JournalMark.write(.unborn, in: directory) }
        let connection = try opening.connect(create: isNew)
        let version = try opening.check(connection)
        try opening.configure(connection, maxPageCount: maxPageCount ?? environmentMaxPageCount())
        try opening.run { () throws(SQLiteError) in try JournalSchema.migrate(connection, from: version) }
        let image: StoreImage
        do throws(ImageReader.Failure) {
            image = try ImageReader.read(connection, eventHistory: eventHistory)
        } catch {
            switch error {
            case .sqlite(let error): throw opening.failure(error)
            case .decoding(let error): throw opening.damaged(error.description)
            }
        }
        if mark?.epoch != image.epoch {
            try JournalMark.write(.init(epoch: image.epoch, changeIndex: image.changeIndex), in: directory)
        }
        let markFile = try JournalMark(directory: directory, epoch: image.epoch)
        let writer = try opening.run { () throws(SQLiteError) in
            try JournalWriter(connection: connection, path: path, mark: markFile, image: image,
                              eventHistory: eventHistory)
        }
        CSQLite_checkpoint_on_close(connection.handle, 1)
        let unwritable = writer.probe()
        let reader = try opening.connect(create: false)
        // A connection opens the WAL at its first read; until then it cannot checkpoint it.
        _ = try opening.run { () throws(SQLiteError) in try reader.integer("SELECT count(*) FROM sqlite_schema") }
        let checkpointer = Checkpointer(connection: reader, mark: markFile)
        let journal = SQLiteJournal(directory: directory, writer: writer, checkpointer: checkpointer, lock: lock)
        if let unwritable { journal.fail(unwritable) }
        return (journal, image)
    }

    /// `ALERTD_SQLITE_MAX_PAGE_COUNT` as a positive number, if set.
    private static func environmentMaxPageCount() -> Int? {
        ProcessInfo.processInfo.environment[maxPageCountVariable].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
    }
}

/// The steps of opening one file, each turning SQLite's errors into a `JournalOpenError` that names the file.
private struct OpeningFile {
    let path: String
    let directory: String
    /// What `DIR/alertd.mark` says, when the data dir has one: it held this journal, committed this far.
    let mark: JournalMark.Contents?

    /// Opens the file, creating it when `create`. The connection does not checkpoint when closed (until `open`
    /// turns that back on), so that a journal refused here keeps its write-ahead log as it found it.
    func connect(create: Bool) throws(JournalOpenError) -> SQLiteConnection {
        let connection = try run { () throws(SQLiteError) in try SQLiteConnection(path: path, create: create) }
        CSQLite_checkpoint_on_close(connection.handle, 0)
        return connection
    }

    /// Whether the data dir holds no journal and never did, so that a new one is made: no database file (or an empty
    /// one beside the mark a first start writes before it makes the file, `JournalMark.Contents.unborn`), no log
    /// beside it, and no mark that names a journal. A database file that is gone or empty while its log or mark is
    /// there is refused, as is what an interrupted `alertd restore` left.
    func isNew() throws(JournalOpenError) -> Bool {
        if let leftover = SQLiteJournal.restoreLeftovers(in: directory).first {
            throw JournalOpenError(.incomplete, "\(directory)/\(leftover) is what an interrupted alertd restore left; "
                + "alertd does not start on it: run alertd restore again (it removes what the interrupted one left), "
                + "or remove it")
        }
        var status = stat()
        let database = lstat(path, &status) == 0 ? status : nil
        let logs = [path + "-wal", path + "-shm"]
        if database == nil, let log = logs.first(where: { lstat($0, &status) == 0 }) {
            throw JournalOpenError(.incomplete, "\(log) is there without its database \(path); alertd leaves it "
                + "untouched and does not start a new journal over it: put the database back, restore a backup "
                + "(alertd restore, after moving \(log) away), or, to start with no alerts, move \(log) away")
        }
        if let database, database.st_size > 0 { return false }
        let missing = database == nil ? "missing" : "empty (0 bytes)"
        if let mark, !mark.isUnborn {
            throw JournalOpenError(.incomplete, "\(path) is \(missing), but this data dir held a journal (committed to "
                + "change index \(mark.changeIndex), says \(JournalMark.path(directory))): alertd does not start "
                + "empty over it. Put the journal back, or restore a backup (alertd restore"
                + (database == nil ? "" : ", after moving the empty file away")
                + "); to start with no alerts on purpose, remove \(JournalMark.path(directory))"
                + (database == nil ? "" : " and the empty file"))
        }
        guard database == nil || mark != nil else {
            throw JournalOpenError(.incomplete, "\(path) is empty (0 bytes): alertd does not take it for a new journal. "
                + "Restore a backup (alertd restore, after moving the empty file away), or, if this data dir never "
                + "held alerts, remove it")
        }
        return true
    }

    /// Reads the header (which fails on a file that is not a database) and refuses a file that is not the
    /// journal or is newer, and a journal that is not the one the data dir's mark names or ends before it;
    /// returns its schema version. Writes nothing.
    func check(_ connection: SQLiteConnection) throws(JournalOpenError) -> Int {
        switch try run({ () throws(SQLiteError) in try JournalSchema.contents(of: connection) }) {
        case .fresh:
            if let mark, !mark.isUnborn {
                throw JournalOpenError(.incomplete, "\(path) holds no journal, but this data dir held one (committed "
                    + "to change index \(mark.changeIndex), says \(JournalMark.path(directory))): alertd does not "
                    + "start empty over it. Restore a backup (alertd restore, after moving \(path) away); to start "
                    + "with no alerts on purpose, remove \(JournalMark.path(directory)) and \(path)")
            }
            return 0
        case .journal(let version):
            try checkMark(connection)
            return version
        case .foreign:
            throw JournalOpenError(
                .foreign,
                "\(path) is an SQLite database but not an alertd journal; alertd leaves it untouched: move it away "
                    + "or choose another --data-dir")
        case .newer(let version):
            throw JournalOpenError(
                .newerSchema(found: version, supported: JournalSchema.currentVersion),
                "\(path) has schema version \(version), newer than this alertd understands "
                    + "(\(JournalSchema.currentVersion)); run the newer alertd that wrote it, or restore a backup")
        }
    }

    /// Refuses a journal that is not the one the mark names, or whose last commit is before the mark's: SQLite
    /// read less than was committed (a damaged frame in the write-ahead log ends it; a file put back from a copy).
    private func checkMark(_ connection: SQLiteConnection) throws(JournalOpenError) {
        guard let mark, !mark.isUnborn else { return }
        let (epoch, index) = try run { () throws(SQLiteError) in
            let meta = try connection.prepare("SELECT epoch, change_index FROM meta WHERE singleton = 1")
            guard try meta.step() else { return (nil as String?, 0 as UInt64) }
            return (meta.text(at: 0), UInt64(bitPattern: meta.int64(at: 1)))
        }
        guard epoch == mark.epoch else {
            throw JournalOpenError(.incomplete, "\(path) is not the journal this data dir held (its instance is "
                + "\(epoch ?? "missing"), \(JournalMark.path(directory)) names \(mark.epoch)): alertd leaves both "
                + "untouched. To make a backup the journal, use alertd restore; if this file is the one to run on, "
                + "remove \(JournalMark.path(directory))")
        }
        guard index >= mark.changeIndex else {
            throw JournalOpenError(.behind(found: index, marked: mark.changeIndex), "\(path) ends at change index "
                + "\(index), but commits up to \(mark.changeIndex) were acknowledged (says "
                + "\(JournalMark.path(directory))): SQLite read less than was written, most likely a damaged frame "
                + "in \(path)-wal, and every commit after it is missing. alertd leaves the files untouched and does "
                + "not start: restore a backup (alertd restore); to run on what is left anyway, accepting that "
                + "event ids after \(index) are handed out again, remove \(JournalMark.path(directory))")
        }
    }

    /// WAL mode, full syncs, deleted content overwritten with zeros (`secure_delete`: a dropped alert's secure values
    /// do not stay in the file's free space, nor in a backup copied from it), no automatic checkpoints (the
    /// checkpointer runs them), a WAL file cut back to 32 MiB: above the ~16 MB the WAL cycles through under load, so
    /// that commits write over blocks the file has (DESIGN.md).
    func configure(_ connection: SQLiteConnection, maxPageCount: Int?) throws(JournalOpenError) {
        try run { () throws(SQLiteError) in
            let mode = try connection.text("PRAGMA journal_mode = WAL")
            guard mode?.lowercased() == "wal" else {
                throw SQLiteError(code: SQLITE_ERROR, message: "cannot use WAL mode (journal mode \(mode ?? "none"))")
            }
            try connection.execute("""
                PRAGMA secure_delete = ON;
                PRAGMA synchronous = FULL;
                PRAGMA wal_autocheckpoint = 0;
                PRAGMA journal_size_limit = 33554432;
                PRAGMA busy_timeout = 5000;
                """)
            if let maxPageCount {
                _ = try connection.integer("PRAGMA max_page_count = \(maxPageCount)")
            }
        }
    }

    /// Runs SQLite work, turning its error into a `JournalOpenError`.
    func run<T>(_ work: () throws(SQLiteError) -> T) throws(JournalOpenError) -> T {
        do throws(SQLiteError) {
            return try work()
        } catch {
            throw failure(error)
        }
    }

    func failure(_ error: SQLiteError) -> JournalOpenError {
        if error.isCorruption { return damaged(error.message) }
        switch error.primaryCode {
        case SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_PERM:
            var status = stat()
            let file = stat(path, &status) == 0 ? "it is \(DataDirectory.describe(status))" : "it cannot be made"
            return JournalOpenError(.directory, "cannot open \(path) for writing: \(error.message) (\(file); alertd "
                + "runs as \(DataDirectory.user(geteuid())))")
        default:
            return JournalOpenError(.failed, "cannot open the journal \(path): \(error.message)")
        }
    }

    func damaged(_ reason: String) -> JournalOpenError {
        JournalOpenError(
            .corrupt,
            "\(path) is damaged or not an SQLite database (\(reason)); alertd leaves it untouched: restore a backup "
                + "(docs/OPERATIONS.md, Backup and restore) or move it away")
    }
}

/// Why the journal cannot be opened; the description says it for the person starting alertd.
public struct JournalOpenError: Error, Sendable, CustomStringConvertible {
    /// The kind of problem.
    public enum Reason: Sendable, Equatable {
        /// The data directory cannot be created or written.
        case directory
        /// The data directory or a file in it is not alertd's alone: another user's, writable by others, a
        /// symbolic link, or a journal file others can read.
        case untrusted
        /// Another process holds the data directory; `pid` is the process it names, when it could be read.
        case locked(pid: Int32?)
        /// The file is not an SQLite database, or is damaged.
        case corrupt
        /// The data dir held a journal that is gone, empty or not the one it held, or holds parts of one (a log
        /// without its database, what an interrupted restore left).
        case incomplete
        /// The journal ends at change index `found`, before `marked`, the last commit the data dir's mark says was
        /// acknowledged: commits were lost (a damaged write-ahead log).
        case behind(found: UInt64, marked: UInt64)
        /// The file is an SQLite database that is not alertd's journal.
        case foreign
        /// The file was written by a newer alertd.
        case newerSchema(found: Int, supported: Int)
        /// SQLite failed otherwise.
        case failed
    }

    /// The kind of problem.
    public let reason: Reason
    /// What went wrong and what to do, naming the path.
    public let description: String

    init(_ reason: Reason, _ description: String) {
        self.reason = reason
        self.description = description
    }
}

/// The journal's tables, and the steps that bring a file from any earlier schema version to the current one.
///
/// `PRAGMA user_version` holds the version (0: a new, empty file); `PRAGMA application_id` marks the file as
/// alertd's. Each step runs in a transaction of its own with the version bump, so a crash mid-migration leaves
/// the previous version intact. A step, once released, never changes: a new version adds a step.
enum JournalSchema {
    /// `PRAGMA application_id`: "alrd".
    static let applicationID: Int64 = 0x616C_7264

    /// Step `n` (0-based) takes a file from version `n` to `n + 1`.
    static let migrations: [@Sendable (SQLiteConnection) throws(SQLiteError) -> Void] = [version1, version2, version3, version4]

    /// The version this build writes.
    static var currentVersion: Int { migrations.count }

    /// What an open SQLite file holds, as far as the journal is concerned.
    enum Contents: Equatable {
        /// A new, empty file (version 0, no tables).
        case fresh
        /// alertd's journal at this schema version, which this build reads (and migrates when older).
        case journal(version: Int)
        /// An SQLite database that is not alertd's journal.
        case foreign
        /// alertd's journal written by a newer build.
        case newer(version: Int)
    }

    /// Reads the header of the file `connection` has open (which fails on a file that is not a database) and tells
    /// what it holds. Writes nothing.
    static func contents(of connection: SQLiteConnection) throws(SQLiteError) -> Contents {
        let version = Int(try connection.integer("PRAGMA user_version") ?? 0)
        let application = try connection.integer("PRAGMA application_id") ?? 0
        if version == 0, application == 0, try connection.integer("SELECT count(*) FROM sqlite_schema") == 0 {
            return .fresh
        }
        guard application == applicationID, version > 0 else { return .foreign }
        return version <= currentVersion ? .journal(version: version) : .newer(version: version)
    }

    /// Runs the steps from `version` to `currentVersion`.
    static func migrate(_ connection: SQLiteConnection, from version: Int) throws(SQLiteError) {
        for step in version..<currentVersion {
            try connection.execute("BEGIN IMMEDIATE")
            do throws(SQLiteError) {
                try migrations[step](connection)
                try connection.execute("PRAGMA user_version = \(step + 1)")
                try connection.execute("COMMIT")
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// Version 1: alerts, the event history (each event with a copy of its alert), idempotency keys and the meta row
    /// with a new epoch.
    ///
    /// Dates are integer milliseconds since 1970. Sequence numbers and event indexes are unsigned 64-bit values
    /// stored with their bit pattern. An idempotency key without owner has owner `''` (owner names are never
    /// empty), so that `(owner, key)` is unique for keys without owner too.
    private static let version1: @Sendable (SQLiteConnection) throws(SQLiteError) -> Void = { connection in
        try connection.execute("""
            PRAGMA application_id = \(applicationID);
            CREATE TABLE meta (
                singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                epoch TEXT NOT NULL,
                change_index INTEGER NOT NULL,
                next_sequence INTEGER NOT NULL
            ) STRICT;
            CREATE TABLE alerts (
                sequence INTEGER PRIMARY KEY,
                id TEXT NOT NULL,
                \(version1AlertColumns)
            ) STRICT;
            CREATE TABLE events (
                idx INTEGER PRIMARY KEY,
                kind TEXT NOT NULL,
                sequence INTEGER NOT NULL,
                id TEXT NOT NULL,
                \(version1AlertColumns)
            ) STRICT;
            CREATE TABLE idempotency (
                sequence INTEGER PRIMARY KEY,
                owner TEXT NOT NULL,
                key TEXT NOT NULL,
                draft TEXT NOT NULL,
                UNIQUE (owner, key)
            ) STRICT;
            """)
        let insert = try connection.prepare("INSERT INTO meta VALUES (1, ?, 0, 1)")
        insert.bind(newEpoch(), at: 1)
        try insert.run()
    }

    /// Version 2: an event row names its alert instead of holding a copy of it, which halves what a create or a
    /// resolution writes. The alert's row in `alerts` shows every event of it (see `EventSnapshot`); once retention
    /// drops an alert whose events are still in the history, its last row moves to `event_alerts`, and leaves it
    /// with the last of those events.
    ///
    /// From version 1: each event keeps its index, kind and sequence number; each alert that events name but
    /// `alerts` no longer holds gets its latest event's copy in `event_alerts`.
    private static let version2: @Sendable (SQLiteConnection) throws(SQLiteError) -> Void = { connection in
        let alertColumns = "sequence, id, owner, presenter, title, message, style, tag, animated, buttons, fields, "
            + "created_at, expires_at, callback, delivery_state, delivery_attempts, delivery_last_error, "
            + "delivery_last_attempt_at, result"
        try connection.execute("""
            CREATE TABLE event_alerts (
                sequence INTEGER PRIMARY KEY,
                id TEXT NOT NULL,
                \(version1AlertColumns)
            ) STRICT;
            INSERT INTO event_alerts (\(alertColumns))
                SELECT \(alertColumns) FROM (
                    SELECT max(idx), * FROM events
                    WHERE sequence NOT IN (SELECT sequence FROM alerts)
                    GROUP BY sequence);
            CREATE TABLE events_v2 (
                idx INTEGER PRIMARY KEY,
                kind TEXT NOT NULL,
                sequence INTEGER NOT NULL
            ) STRICT;
            INSERT INTO events_v2 (idx, kind, sequence) SELECT idx, kind, sequence FROM events;
            DROP TABLE events;
            ALTER TABLE events_v2 RENAME TO events;
            """)
    }

    /// Version 3: who may answer an alert (`AnswerPolicy` as JSON; `NULL` for the default: anyone with the role), in
    /// `alerts` and `event_alerts`. Rows from version 2 keep `NULL`: their alerts had no policy.
    private static let version3: @Sendable (SQLiteConnection) throws(SQLiteError) -> Void = { connection in
        try connection.execute("""
            ALTER TABLE alerts ADD COLUMN policy TEXT;
            ALTER TABLE event_alerts ADD COLUMN policy TEXT;
            """)
    }

    /// Version 4: the rules that answer alerts (`AnswerRule` as JSON), one row per rule.
    private static let version4: @Sendable (SQLiteConnection) throws(SQLiteError) -> Void = { connection in
        try connection.execute("CREATE TABLE rules (name TEXT PRIMARY KEY, rule TEXT NOT NULL) STRICT;")
    }

    /// The columns of an alert after its sequence number and id, in `alerts` and `event_alerts` (and in version 1's
    /// `events`).
    private static let version1AlertColumns = """
        owner TEXT, presenter TEXT NOT NULL, title TEXT NOT NULL, message TEXT NOT NULL, style TEXT NOT NULL,
        tag INTEGER NOT NULL, animated INTEGER NOT NULL, buttons TEXT NOT NULL, fields TEXT NOT NULL,
        created_at INTEGER NOT NULL, expires_at INTEGER, callback TEXT, delivery_state TEXT,
        delivery_attempts INTEGER, delivery_last_error TEXT, delivery_last_attempt_at INTEGER, result TEXT
        """

    /// 16 random bytes in hex: the instance identity, made once per data dir.
    static func newEpoch() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for _ in 0..<16 {
            let byte = generator.next() as UInt8
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
