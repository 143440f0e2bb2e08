import CSQLite

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
