import CSQLite
import Foundation

extension SQLiteJournal {
    /// Copies the journal in `directory` to `file` with SQLite's online backup API: a consistent snapshot of the
    /// last commit, taken while alertd may be running (a reader never blocks its writer).
    ///
    /// The copy is written beside `file` and renamed into place once complete, so `file` is either the previous
    /// file or the whole backup. `restore(backup:into:)` makes it a data dir's journal again.
    ///
    /// - Parameters:
    ///   - directory: The data directory of the journal to copy.
    ///   - file: Where the copy goes; replaced if it exists. Never inside `directory`, nor one of the journal's
    ///     files under another name (the rename would replace the running journal, which goes on writing to the
    ///     file it has open, lost at the next start).
    /// - Throws: `JournalBackupError` when there is no journal in `directory`, `file` is inside it or is one of its
    ///   files, or the copy cannot be written.
    public static func backup(directory: String, to file: String) throws(JournalBackupError) {
        let path = DataDirectory.databasePath(directory)
        guard FileManager.default.fileExists(atPath: path) else {
            throw JournalBackupError("there is no alertd journal in \(directory) (no \(path))")
        }
        try refuseTarget(file, of: directory)
        let partial = "\(file).partial-\(getpid())"
        removeStalePartials(of: file)
        defer { unlink(partial) }
        do throws(SQLiteError) {
            let source = try SQLiteConnection(path: path, create: false)
            try source.execute("PRAGMA busy_timeout = 5000")
            guard try source.integer("PRAGMA application_id") == JournalSchema.applicationID else {
                throw SQLiteError(code: SQLITE_NOTADB, message: "it is not an alertd journal")
            }
            unlink(partial)
            let copy = try SQLiteConnection(path: partial, create: true)
            try copyDatabase(from: source, to: copy)
            copy.close()
            source.close()
        } catch {
            throw JournalBackupError("cannot back up \(path) to \(file): \(error.message)")
        }
        guard rename(partial, file) == 0 else {
            throw JournalBackupError("cannot write \(file): \(String(cString: strerror(errno)))")
        }
        DataDirectory.sync(DataDirectory.parent(of: file))
    }

    /// Refuses a backup `file` inside the data dir `directory` (however either is spelled: symbolic links and `..`
    /// resolved) or naming one of its files by another name (a hard link): a backup beside the journal is lost with
    /// it, and one on the journal's own name replaces the running journal.
    private static func refuseTarget(_ file: String, of directory: String) throws(JournalBackupError) {
        guard let data = resolvedPath(directory), let folder = resolvedPath(DataDirectory.parent(of: file)) else {
            throw JournalBackupError("cannot write \(file): \(DataDirectory.errorText())")
        }
        if folder == data || folder.hasPrefix(data.hasSuffix("/") ? data : data + "/") {
            throw JournalBackupError("\(file) is inside the data directory \(directory): write the backup "
                + "elsewhere (on the journal's own name it would replace the running journal; beside it, it is "
                + "lost with the journal)")
        }
        guard let target = FileIdentity(path: file) else { return }
        let files = DataDirectory.journalPaths(directory)
            + [DataDirectory.lockPath(directory), JournalMark.path(directory)]
        if let same = files.first(where: { FileIdentity(path: $0) == target }) {
            throw JournalBackupError("\(file) is \(same) under another name (a link): write the backup elsewhere")
        }
    }

    /// Removes the `FILE.partial-PID` copies (and their rollback journals) that a backup to `file` killed before it
    /// finished left beside it: they hold secure values. Only those of processes that no longer run.
    private static func removeStalePartials(of file: String) {
        let folder = DataDirectory.parent(of: file)
        let prefix = (file.lastIndex(of: "/").map { String(file[file.index(after: $0)...]) } ?? file) + ".partial-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix(prefix) {
            let pid = name.dropFirst(prefix.count).prefix { $0.isNumber }
            guard let pid = Int32(pid), kill(pid, 0) != 0, errno == ESRCH else { continue }
            unlink(folder + "/" + name)
        }
    }

    /// How far `restore` moves the change index on: more events than the alertd the backup was taken from can have
    /// made after it, so that no event id is handed out twice, for two different events.
    public static let restoreIndexStep: UInt64 = 1 << 32

    /// What `restore` put in place.
    public struct Restored: Sendable, Equatable {
        /// The alerts the backup holds, pending and resolved.
        public var alerts: Int
        /// The backup's change index.
        public var backupIndex: UInt64
        /// The change index the restored journal goes on from.
        public var restoredIndex: UInt64
    }

    /// Makes a backup (from `backup(directory:to:)`, or `sqlite3 … .backup`) the journal of `directory`, as a new
    /// instance of alertd: a new instance identity, and a change index moved on by `restoreIndexStep` with no events
    /// kept, so that a client of the alertd the backup was taken from notices (its cursors get `410`, a waiter's
    /// alert missing from the backup is reported lost) instead of being handed other events under ids it has seen.
    ///
    /// Refuses a data dir in use by a running alertd or already holding a journal (move it away first), and a file
    /// that is not an alertd journal, is newer than this alertd, or fails `PRAGMA quick_check`. The copy is written
    /// beside the journal's path and renamed into place once complete, after the data dir's mark was written to
    /// name it; what an interrupted restore left there is removed first; `backup` is only read.
    ///
    /// - Parameters:
    ///   - backup: The backup file.
    ///   - directory: The data directory to restore into; made when missing.
    /// - Returns: What was restored.
    /// - Throws: `JournalBackupError` saying what is wrong.
    public static func restore(backup: String, into directory: String) throws(JournalBackupError) -> Restored {
        let lock: DataDirectoryLock
        do {
            try DataDirectory.prepare(directory)
            lock = try DataDirectoryLock(directory: directory)
        } catch {
            throw JournalBackupError(error.description)
        }
        defer { lock.release() }
        let path = DataDirectory.databasePath(directory)
        // With the lock held, what a `.restoring-` file names is a restore that no longer runs.
        for leftover in restoreLeftovers(in: directory) { unlink(directory + "/" + leftover) }
        for file in DataDirectory.journalPaths(directory) where FileManager.default.fileExists(atPath: file) {
            throw JournalBackupError("\(directory) already holds a journal (\(file)); restore into a data dir without "
                + "one: move alertd.sqlite3 and its -wal and -shm away first")
        }
        guard FileManager.default.fileExists(atPath: backup) else { throw JournalBackupError("no such file: \(backup)") }
        let partial = "\(path).restoring-\(getpid())"
        defer { unlink(partial) }
        let restored: Restored
        let epoch: String
        do throws(SQLiteError) {
            // A backup without a `-wal` beside it is read as immutable: a read-only connection to a WAL-mode file
            // would make a `-wal` and `-shm` beside it, left there if the restore is killed.
            let immutable = !FileManager.default.fileExists(atPath: backup + "-wal")
            let source = try SQLiteConnection(path: backup, create: false, readOnly: true, immutable: immutable)
            let version = try checkBackup(source, backup)
            unlink(partial)
            let copy = try SQLiteConnection(path: partial, create: true)
            try copyDatabase(from: source, to: copy)
            source.close()
            try JournalSchema.migrate(copy, from: version)
            let before = UInt64(bitPattern: try copy.integer("SELECT change_index FROM meta") ?? 0)
            let update = try copy.prepare("UPDATE meta SET epoch = ?, change_index = ?")
            epoch = JournalSchema.newEpoch()
            update.bind(epoch, at: 1)
            update.bind(Int64(bitPattern: before &+ restoreIndexStep), at: 2)
            try copy.execute("BEGIN IMMEDIATE")
            try update.run()
            try copy.execute("DELETE FROM events; DELETE FROM event_alerts; COMMIT")
            restored = Restored(alerts: Int(try copy.integer("SELECT count(*) FROM alerts") ?? 0),
                                backupIndex: before, restoredIndex: before &+ restoreIndexStep)
            // Everything into the one file that is renamed into place: a copy of a WAL-mode backup writes a `-wal`
            // beside it, which the rename would leave behind. alertd turns WAL mode on again when it opens the file.
            let mode = try copy.text("PRAGMA journal_mode = DELETE")
            guard mode?.lowercased() == "delete" else {
                throw SQLiteError(code: SQLITE_ERROR, message: "cannot leave WAL mode (journal mode \(mode ?? "none"))")
            }
            copy.close()
        } catch {
            throw JournalBackupError("cannot restore \(backup) into \(directory): \(error.message)")
        }
        // The mark first: until the rename a start finds the mark without its journal and refuses; after it, both.
        do {
            try JournalMark.write(.init(epoch: epoch, changeIndex: restored.restoredIndex), in: directory)
        } catch {
            throw JournalBackupError(error.description)
        }
        guard rename(partial, path) == 0 else {
            throw JournalBackupError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
        DataDirectory.sync(directory)
        return restored
    }

    /// The names in `directory` that an interrupted `restore` left: its copy and the files SQLite kept beside it.
    static func restoreLeftovers(in directory: String) -> [String] {
        let prefix = "alertd.sqlite3.restoring-"
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasPrefix(prefix) }
            .sorted()
    }

    /// Copies `source` into `copy` with SQLite's backup API, in one step: a consistent snapshot of `source`'s last
    /// commit, waiting while a writer holds it.
    private static func copyDatabase(from source: SQLiteConnection, to copy: SQLiteConnection) throws(SQLiteError) {
        guard let backup = sqlite3_backup_init(copy.handle, "main", source.handle, "main") else {
            throw SQLiteError(code: sqlite3_extended_errcode(copy.handle), connection: copy.handle)
        }
        var code = sqlite3_backup_step(backup, -1)
        while code == SQLITE_BUSY || code == SQLITE_LOCKED {
            usleep(10_000)
            code = sqlite3_backup_step(backup, -1)
        }
        let finished = sqlite3_backup_finish(backup)
        guard code == SQLITE_DONE, finished == SQLITE_OK else {
            throw SQLiteError(code: code == SQLITE_DONE ? finished : code, connection: copy.handle)
        }
    }

    /// The schema version of a backup about to be restored, once it is known to be an alertd journal this alertd
    /// reads, and undamaged.
    private static func checkBackup(_ source: SQLiteConnection, _ file: String) throws(SQLiteError) -> Int {
        let version: Int
        switch try JournalSchema.contents(of: source) {
        case .journal(let found):
            version = found
        case .fresh, .foreign:
            throw SQLiteError(code: SQLITE_NOTADB, message: "it is not an alertd journal or backup")
        case .newer(let found):
            throw SQLiteError(code: SQLITE_ERROR, message: "it has schema version \(found), newer than this alertd "
                + "understands (\(JournalSchema.currentVersion)): restore it with the alertd that wrote it")
        }
        let check = try source.text("PRAGMA quick_check") ?? "no answer"
        guard check == "ok" else {
            throw SQLiteError(code: SQLITE_CORRUPT, message: "it is damaged (PRAGMA quick_check: \(check))")
        }
        return version
    }
}

/// Why an online backup failed; the description names the file and SQLite's reason.
public struct JournalBackupError: Error, Sendable, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
