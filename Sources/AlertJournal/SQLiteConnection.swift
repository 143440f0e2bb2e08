import CSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One SQLite connection, used by one thread at a time (opened `SQLITE_OPEN_NOMUTEX`).
final class SQLiteConnection {
    /// The `sqlite3 *`; nil once closed.
    private(set) var handle: OpaquePointer?

    /// Opens the database at `path`.
    ///
    /// - Parameters:
    ///   - path: The database file.
    ///   - create: Whether to create the file when it does not exist. A file made here has mode 0600 whatever the
    ///     umask, and SQLite gives its `-wal` and `-shm` the same mode: it holds secure values and callback
    ///     credentials, and the data dir or a backup's directory may be readable by others.
    ///   - readOnly: Opens it for reading only (a backup being restored), never creating it.
    ///   Otherwise a `path` that is a symbolic link is refused (`SQLITE_OPEN_NOFOLLOW`): the journal's files are
    ///   never reached through one.
    /// - Throws: `SQLiteError` when SQLite cannot open it.
    ///   - immutable: With `readOnly`, reads the file as one nothing changes (`immutable=1`): no locks, and no `-wal`
    ///     or `-shm` made beside it; what a `-wal` beside it holds is not read.
    init(path: String, create: Bool, readOnly: Bool = false, immutable: Bool = false) throws(SQLiteError) {
        _ = Self.configured
        if create, !readOnly { makePrivateFile(path) }
        var handle: OpaquePointer?
        let access = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0)
        let flags = access | SQLITE_OPEN_NOMUTEX | (readOnly ? 0 : SQLITE_OPEN_NOFOLLOW)
            | (readOnly && immutable ? SQLITE_OPEN_URI : 0)
        let name = readOnly && immutable ? "file:\(uriEscaped(path))?immutable=1" : path
        let code = sqlite3_open_v2(name, &handle, flags, nil)
        guard code == SQLITE_OK else {
            let error = SQLiteError(code: code, connection: handle)
            sqlite3_close_v2(handle)
            throw error
        }
        self.handle = handle
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit {
        close()
    }

    /// Process-wide settings, made once before the first connection: no memory statistics (a global mutex around
    /// every allocation, 8% of a commit's time in a profile).
    private static let configured: Void = {
        _ = CSQLite_disable_memory_statistics()
    }()

    /// Closes the connection; statements not yet finalized are closed when they are.
    func close() {
        guard let handle else { return }
        sqlite3_close_v2(handle)
        self.handle = nil
    }

    /// Runs one or more statements that take no parameters.
    func execute(_ sql: String) throws(SQLiteError) {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: handle) }
    }

    /// Compiles one statement.
    func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else { throw SQLiteError(code: code, connection: handle) }
        return SQLiteStatement(statement, connection: handle)
    }

    /// The first column of the first row of `sql` as an integer (a pragma's value), or nil without a row.
    func integer(_ sql: String) throws(SQLiteError) -> Int64? {
        let statement = try prepare(sql)
        guard try statement.step() else { return nil }
        return statement.int64(at: 0)
    }

    /// The first column of the first row of `sql` as text, or nil without a row.
    func text(_ sql: String) throws(SQLiteError) -> String? {
        let statement = try prepare(sql)
        guard try statement.step() else { return nil }
        return statement.optionalText(at: 0)
    }
}

/// Makes an empty file at `path` with mode 0600, unless something is there: an empty file is a new database to SQLite.
/// When it cannot be made, SQLite's open says why.
private func makePrivateFile(_ path: String) {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    if descriptor >= 0 { close(descriptor) }
}

/// `path` for a `file:` URI: `%`, `?` and `#` percent-encoded (SQLite decodes them).
private func uriEscaped(_ path: String) -> String {
    var text = ""
    for character in path {
        switch character {
        case "%": text += "%25"
        case "?": text += "%3f"
        case "#": text += "%23"
        default: text.append(character)
        }
    }
    return text
}
