import AlertCore
import CSQLite
import Foundation

extension SQLiteJournal {
    /// The environment variable that caps the database at this many pages: a testing aid that makes a full disk
    /// (`SQLITE_FULL` at commit) without filling one.
    public static let maxPageCountVariable = "ALERTD_SQLITE_MAX_PAGE_COUNT"

    /// Opens the journal in `directory`, creating both when new, and reads back what it holds.
    ///
    /// Makes the directory (mode 0700) when missing; takes `DIR/alertd.lock` (an exclusive `flock` with this
    /// process's pid in it); opens `DIR/alertd.sqlite3`, migrating an older schema; makes the instance epoch on
    /// first use; then starts the writer and checkpoint threads. A file that is not an SQLite database, is
    /// damaged, is another program's, or has a newer schema is refused and left untouched.
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
        let opening = OpeningFile(path: path, directory: directory)
        let connection = try opening.connect()
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
        let writer = try opening.run { () throws(SQLiteError) in
            try JournalWriter(connection: connection, image: image, eventHistory: eventHistory)
        }
        let reader = try opening.connect()
        // A connection opens the WAL at its first read; until then it cannot checkpoint it.
        _ = try opening.run { () throws(SQLiteError) in try reader.integer("SELECT count(*) FROM sqlite_schema") }
        let checkpointer = Checkpointer(connection: reader)
        return (SQLiteJournal(directory: directory, writer: writer, checkpointer: checkpointer, lock: lock), image)
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

    func connect() throws(JournalOpenError) -> SQLiteConnection {
        try run { () throws(SQLiteError) in try SQLiteConnection(path: path, create: true) }
    }

    /// Reads the header (which fails on a file that is not a database) and refuses a file that is not the
    /// journal or is newer; returns its schema version. Writes nothing.
    func check(_ connection: SQLiteConnection) throws(JournalOpenError) -> Int {
        switch try run({ () throws(SQLiteError) in try JournalSchema.contents(of: connection) }) {
        case .fresh:
            return 0
        case .journal(let version):
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

    /// WAL mode, full syncs, no automatic checkpoints (the checkpointer runs them), a WAL file cut back to 32 MiB: above
    /// the ~16 MB the WAL cycles through under load, so that commits write over blocks the file has (DESIGN.md).
    func configure(_ connection: SQLiteConnection, maxPageCount: Int?) throws(JournalOpenError) {
        try run { () throws(SQLiteError) in
            let mode = try connection.text("PRAGMA journal_mode = WAL")
            guard mode?.lowercased() == "wal" else {
                throw SQLiteError(code: SQLITE_ERROR, message: "cannot use WAL mode (journal mode \(mode ?? "none"))")
            }
            try connection.execute("""
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
            return JournalOpenError(.directory, "cannot open \(path) for writing: \(error.message)")
        default:
            return JournalOpenError(.failed, "cannot open the journal \(path): \(error.message)")
        }
    }

    func damaged(_ reason: String) -> JournalOpenError {
        JournalOpenError(
            .corrupt,
            "\(path) is damaged or not an SQLite database (\(reason)); alertd leaves it untouched: restore a backup "
                + "(README, Durability) or move it away")
    }
}
