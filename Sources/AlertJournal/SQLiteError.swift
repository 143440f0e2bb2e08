import CSQLite

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
