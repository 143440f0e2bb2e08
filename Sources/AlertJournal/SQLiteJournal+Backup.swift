import CSQLite
import Foundation

extension SQLiteJournal {
    /// Copies the journal in `directory` to `file` with SQLite's online backup API: a consistent snapshot of the
    /// last commit, taken while alertd may be running (a reader never blocks its writer).
    ///
    /// The copy is written beside `file` and renamed into place once complete, so `file` is either the previous
    /// file or the whole backup. Restore it by stopping alertd and copying it to `DIR/alertd.sqlite3` (removing
    /// `alertd.sqlite3-wal` and `alertd.sqlite3-shm` there).
    ///
    /// - Parameters:
    ///   - directory: The data directory of the journal to copy.
    ///   - file: Where the copy goes; replaced if it exists.
    /// - Throws: `JournalBackupError` when there is no journal in `directory` or the copy cannot be written.
    public static func backup(directory: String, to file: String) throws(JournalBackupError) {
        let path = DataDirectory.databasePath(directory)
        guard FileManager.default.fileExists(atPath: path) else {
            throw JournalBackupError("there is no alertd journal in \(directory) (no \(path))")
        }
        let partial = "\(file).partial-\(getpid())"
        defer { unlink(partial) }
        do throws(SQLiteError) {
            let source = try SQLiteConnection(path: path, create: false)
            try source.execute("PRAGMA busy_timeout = 5000")
            guard try source.integer("PRAGMA application_id") == JournalSchema.applicationID else {
                throw SQLiteError(code: SQLITE_NOTADB, message: "it is not an alertd journal")
            }
            unlink(partial)
            let copy = try SQLiteConnection(path: partial, create: true)
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
            copy.close()
            source.close()
        } catch {
            throw JournalBackupError("cannot back up \(path) to \(file): \(error.message)")
        }
        guard rename(partial, file) == 0 else {
            throw JournalBackupError("cannot write \(file): \(String(cString: strerror(errno)))")
        }
        syncDirectory(of: file)
    }

}

/// Flushes the directory holding `file`, so that its new name survives a power loss.
private func syncDirectory(of file: String) {
    let directory = file.lastIndex(of: "/").map { String(file[..<$0]) } ?? "."
    let descriptor = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard descriptor >= 0 else { return }
    fsync(descriptor)
    close(descriptor)
}
