import CSQLite

/// Runs `sql` on the file at `path` with a plain SQLite connection, behind the journal's back; returns the first
/// column of the first row as an integer, if any.
@discardableResult
func rawSQL(_ path: String, _ sql: String) -> Int64? {
    var connection: OpaquePointer?
    guard sqlite3_open(path, &connection) == SQLITE_OK else { return nil }
    defer { sqlite3_close(connection) }
    var statement: OpaquePointer?
    var rest: UnsafePointer<CChar>?
    var result: Int64?
    sql.withCString { text in
        var next: UnsafePointer<CChar>? = text
        while let current = next, current.pointee != 0 {
            guard sqlite3_prepare_v2(connection, current, -1, &statement, &rest) == SQLITE_OK else { return }
            if let statement, sqlite3_step(statement) == SQLITE_ROW, result == nil {
                result = sqlite3_column_int64(statement, 0)
            }
            sqlite3_finalize(statement)
            next = rest
        }
    }
    return result
}
