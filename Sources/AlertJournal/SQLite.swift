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

/// A prepared statement: bind parameters (1-based), step, read columns (0-based), reset.
final class SQLiteStatement {
    private let handle: OpaquePointer
    /// The connection, for error messages.
    private let connection: OpaquePointer?

    init(_ handle: OpaquePointer, connection: OpaquePointer?) {
        self.handle = handle
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(handle)
    }

    // MARK: Running

    /// Steps once: `true` with a row to read, `false` when done.
    func step() throws(SQLiteError) -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw SQLiteError(code: code, connection: connection)
        }
    }

    /// Steps to completion and resets, for a statement that returns no rows.
    func run() throws(SQLiteError) {
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    /// Makes the statement ready to run again (bindings stay).
    func reset() {
        sqlite3_reset(handle)
    }

    // MARK: Parameters

    func bind(_ value: Int64, at index: Int32) {
        sqlite3_bind_int64(handle, index, value)
    }

    func bind(_ value: Int64?, at index: Int32) {
        if let value { sqlite3_bind_int64(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    func bind(_ value: String, at index: Int32) {
        var value = value
        value.withUTF8 { bindText(UnsafeRawBufferPointer($0), at: index) }
    }

    func bind(_ value: String?, at index: Int32) {
        if let value { bind(value, at: index) } else { sqlite3_bind_null(handle, index) }
    }

    /// Binds UTF-8 bytes (JSON) as text.
    func bind(text bytes: [UInt8], at index: Int32) {
        bytes.withUnsafeBytes { bindText($0, at: index) }
    }

    func bind(text bytes: [UInt8]?, at index: Int32) {
        if let bytes { bind(text: bytes, at: index) } else { sqlite3_bind_null(handle, index) }
    }

    /// Binds UTF-8 bytes as text, which SQLite copies (an empty buffer is empty text, not NULL).
    private func bindText(_ bytes: UnsafeRawBufferPointer, at index: Int32) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else {
            _ = CSQLite_bind_text(handle, index, "", 0)
            return
        }
        _ = CSQLite_bind_text(handle, index, base.assumingMemoryBound(to: CChar.self), Int32(bytes.count))
    }

    // MARK: Columns

    func isNull(at column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    func int64(at column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    func optionalInt64(at column: Int32) -> Int64? {
        isNull(at: column) ? nil : int64(at: column)
    }

    /// The column's UTF-8 bytes, valid until the next step or reset; empty for NULL.
    func bytes(at column: Int32) -> UnsafeRawBufferPointer {
        guard let pointer = sqlite3_column_text(handle, column) else {
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        return UnsafeRawBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(handle, column)))
    }

    func text(at column: Int32) -> String {
        String(decoding: bytes(at: column), as: UTF8.self)
    }

    func optionalText(at column: Int32) -> String? {
        isNull(at: column) ? nil : text(at: column)
    }
}

/// A failed SQLite call: the result code and SQLite's message.
struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The extended result code (`SQLITE_FULL`, `SQLITE_IOERR_FSYNC`, …).
    let code: Int32
    /// SQLite's message, such as "database or disk is full".
    let message: String

    /// The error the connection reports for its last failed call.
    init(code: Int32, connection: OpaquePointer?) {
        self.code = code
        message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? String(cString: sqlite3_errstr(code))
    }

    /// The error of a result code, with SQLite's standard text for it.
    init(code: Int32) {
        self.code = code
        message = String(cString: sqlite3_errstr(code))
    }

    /// An error of the journal's own, with a result code that says what kind it is.
    init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    /// The primary result code (`SQLITE_IOERR` for `SQLITE_IOERR_FSYNC`).
    var primaryCode: Int32 { code & 0xFF }

    /// Whether the file is not a database or is damaged.
    var isCorruption: Bool { primaryCode == SQLITE_CORRUPT || primaryCode == SQLITE_NOTADB }

    var description: String { "\(message) (SQLite error \(code))" }
}
