import CLibPQ
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One libpq connection, used by one thread at a time (the thread that owns it): statements with text parameters
/// and text results, and the notifications `LISTEN` brings.
final class PGConnection {
    private let connection: OpaquePointer
    /// The names of the statements prepared on this connection (`PGStatement.name`).
    private var prepared: Set<String> = []

    /// Connects, or throws what libpq said.
    ///
    /// - Parameters:
    ///   - url: A `postgresql://` URL (or libpq's `key=value` text); its own settings win over the ones below.
    ///   - timeout: Seconds a connection attempt may take.
    init(_ url: String, timeout: Int = 3) throws(PGError) {
        let keys = ["dbname", "connect_timeout", "application_name", "keepalives_idle", "keepalives_interval", "options"]
        let values = [url, String(timeout), "alertd", "10", "5", "-c client_min_messages=warning"]
        let made = withCStrings(keys) { keys in
            withCStrings(values) { values in PQconnectdbParams(keys, values, 1) }
        }
        guard let connection = made else { throw PGError("libpq could not allocate a connection") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection))
            PQfinish(connection)
            throw PGError(message)
        }
        // libpq prints the server's notices on standard error as they come ("WARNING:  terminating connection due to
        // immediate shutdown command"), which would break alertd's one-JSON-object-a-line log. Drop them: the
        // client_min_messages above leaves warnings only, and a failure they announce reaches the log as the error of
        // the statement or connection it breaks.
        PQsetNoticeProcessor(connection, Self.ignoreNotice, nil)
        self.connection = connection
        try execute(Self.sessionSettings)
    }

    /// A libpq notice processor that drops the notice.
    private static let ignoreNotice: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Void = {
        _, _ in
    }

    /// How long one statement (a pipeline's round trip included) may run, and wait for a lock, before PostgreSQL
    /// cancels it: a table or row lock held by another session (psql, a migration, a hung instance) makes writes
    /// fail after this rather than wait for as long as it is held.
    static let statementLimit = Duration.seconds(2)

    /// The session's settings, set once per connection:
    ///
    /// - Every transaction commits only once its WAL is on disk (and on the synchronous standbys, when the server has
    ///   them): the server's or role's `synchronous_commit` is kept unless it is `off`, which is raised to `on`, and
    ///   it is set for the session, so that a later reload of the server's configuration does not lower it. A commit
    ///   that returned is on disk, and what another session reads was flushed before it became visible (PostgreSQL
    ///   flushes a synchronous commit before it shows it or releases its locks).
    /// - `lock_timeout` and `statement_timeout` are `statementLimit` (the image at start lifts the second).
    /// - The server's log gets none of the parameters of alertd's statements (alerts' JSON, secure values included),
    ///   whatever `log_statement` or `log_min_duration_statement` say: `log_parameter_max_length_on_error` is 0, and
    ///   `log_parameter_max_length` too when the role may set it (a superuser; otherwise the README has the
    ///   `ALTER ROLE` for it).
    static let sessionSettings = """
        SELECT set_config('synchronous_commit', CASE current_setting('synchronous_commit') WHEN 'off' THEN 'on'
                   ELSE current_setting('synchronous_commit') END, false),
               set_config('lock_timeout', '\(statementLimit.milliseconds)ms', false),
               set_config('statement_timeout', '\(statementLimit.milliseconds)ms', false),
               set_config('log_parameter_max_length_on_error', '0', false),
               CASE WHEN current_setting('is_superuser') = 'on'
                   THEN set_config('log_parameter_max_length', '0', false) END
        """

    deinit {
        PQfinish(connection)
    }

    /// Whether the connection is still up, as libpq last saw it.
    var isOK: Bool { PQstatus(connection) == CONNECTION_OK }

    /// Runs one statement; `$1…` are `parameters`, as text (`nil` is SQL NULL).
    ///
    /// - Returns: The rows, each column as text (`nil` for NULL).
    @discardableResult
    func execute(_ sql: String, _ parameters: [String?] = []) throws(PGError) -> [[String?]] {
        let result = withCStrings(parameters) { values in
            PQexecParams(connection, sql, Int32(parameters.count), nil, values, nil, nil, 0)
        }
        guard let result else { throw PGError(String(cString: PQerrorMessage(connection))) }
        defer { PQclear(result) }
        return try Self.rows(of: result)
    }

    /// Runs one statement: a named one is prepared on this connection the first time (then PostgreSQL parses it once
    /// and plans it once it has seen it a few times), an unnamed one is parsed and planned each time.
    ///
    /// - Returns: The rows, each column as text (`nil` for NULL).
    @discardableResult
    func execute(_ statement: PGStatement) throws(PGError) -> [[String?]] {
        guard statement.name != nil else { return try execute(statement.sql, statement.parameters) }
        let result = try run(statement)
        defer { PQclear(result) }
        return try Self.rows(of: result)
    }

    /// Runs one named statement, as `execute(_:)` does, and reads each row with `read` while libpq holds it: its
    /// columns as the bytes libpq received, with no `String` made of each (an event's alert is read from them).
    ///
    /// - Returns: What `read` made of each row.
    func execute<Row>(
        _ statement: PGStatement, reading read: (PGRow) throws(PGError) -> Row
    ) throws(PGError) -> [Row] {
        let result = try run(statement)
        defer { PQclear(result) }
        _ = try Self.rows(of: result, columns: false)
        let count = PQntuples(result)
        var rows: [Row] = []
        rows.reserveCapacity(Int(count))
        for row in 0..<count { rows.append(try read(PGRow(result: result, row: row))) }
        return rows
    }

    /// The result of a named statement, prepared on this connection the first time; the caller clears it.
    private func run(_ statement: PGStatement) throws(PGError) -> OpaquePointer {
        try prepare([statement])
        let result = withCStrings(statement.parameters) { values in
            PQexecPrepared(connection, statement.name, Int32(statement.parameters.count), values, nil, nil, 0)
        }
        guard let result else { throw PGError(String(cString: PQerrorMessage(connection))) }
        return result
    }

    /// Prepares the named statements of `statements` not prepared on this connection yet.
    private func prepare(_ statements: [PGStatement]) throws(PGError) {
        for statement in statements {
            guard let name = statement.name, !prepared.contains(name) else { continue }
            guard let result = PQprepare(connection, name, statement.sql, Int32(statement.parameters.count), nil) else {
                throw PGError(String(cString: PQerrorMessage(connection)))
            }
            defer { PQclear(result) }
            _ = try Self.rows(of: result)
            prepared.insert(name)
        }
    }

    /// Sends `statements` at once and reads their results (libpq's pipeline mode): one round trip to the server for
    /// all of them instead of one each. After a statement fails the server skips the rest of the pipeline.
    ///
    /// - Returns: Each statement's rows, or why it failed (or that it was skipped), in order.
    /// - Throws: `PGError` when the connection fails.
    func pipeline(_ statements: [PGStatement]) throws(PGError) -> [Result<[[String?]], PGError>] {
        try prepare(statements)
        guard PQenterPipelineMode(connection) == 1 else { throw PGError(String(cString: PQerrorMessage(connection))) }
        defer { PQexitPipelineMode(connection) }
        for statement in statements {
            let sent = withCStrings(statement.parameters) { values in
                if let name = statement.name {
                    PQsendQueryPrepared(connection, name, Int32(statement.parameters.count), values, nil, nil, 0)
                } else {
                    PQsendQueryParams(connection, statement.sql, Int32(statement.parameters.count), nil, values, nil,
                                      nil, 0)
                }
            }
            guard sent == 1 else { throw PGError(String(cString: PQerrorMessage(connection))) }
        }
        guard PQpipelineSync(connection) == 1 else { throw PGError(String(cString: PQerrorMessage(connection))) }
        var results: [Result<[[String?]], PGError>] = []
        results.reserveCapacity(statements.count)
        for _ in statements {
            var outcome: Result<[[String?]], PGError>?
            // A statement's results end with a null result.
            while let result = PQgetResult(connection) {
                if PQresultStatus(result) == PGRES_PIPELINE_ABORTED {
                    outcome = .failure(PGError("not run: an earlier statement of the pipeline failed"))
                } else {
                    do throws(PGError) {
                        outcome = .success(try Self.rows(of: result))
                    } catch {
                        outcome = .failure(error)
                    }
                }
                PQclear(result)
            }
            guard let outcome else { throw PGError(String(cString: PQerrorMessage(connection))) }
            results.append(outcome)
        }
        guard let sync = PQgetResult(connection) else { throw PGError(String(cString: PQerrorMessage(connection))) }
        defer { PQclear(sync) }
        guard PQresultStatus(sync) == PGRES_PIPELINE_SYNC else {
            throw PGError("the pipeline did not end where it should: \(String(cString: PQerrorMessage(connection)))")
        }
        return results
    }

    /// A result's rows, each column as text (`nil` for NULL; none when not `columns`); or the error it reports.
    private static func rows(of result: OpaquePointer, columns: Bool = true) throws(PGError) -> [[String?]] {
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            throw PGError(String(cString: PQresultErrorMessage(result)), state: state)
        }
        guard columns else { return [] }
        let rows = PQntuples(result)
        let columns = PQnfields(result)
        return (0..<rows).map { row in
            (0..<columns).map { column in
                PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column))
            }
        }
    }

    /// The notifications that came, waiting up to `timeout` milliseconds for the server when none is queued.
    ///
    /// Notifications that arrived while a statement ran on this connection are already queued in libpq: they are
    /// returned at once, without waiting for the socket (which has nothing more to read).
    ///
    /// - Returns: The notifications received (possibly none): each one's payload and the backend that sent it.
    func notifications(waiting timeout: Int32) throws(PGError) -> [PGNotification] {
        var payloads = queuedNotifications()
        guard payloads.isEmpty else { return payloads }
        var poller = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
        if poll(&poller, 1, timeout) > 0 {
            guard PQconsumeInput(connection) == 1 else { throw PGError(String(cString: PQerrorMessage(connection))) }
        }
        payloads = queuedNotifications()
        return payloads
    }

    private func queuedNotifications() -> [PGNotification] {
        var payloads: [PGNotification] = []
        while let notification = PQnotifies(connection) {
            payloads.append(PGNotification(payload: String(cString: notification.pointee.extra),
                                           sender: notification.pointee.be_pid))
            PQfreemem(notification)
        }
        return payloads
    }

    /// The process id of this connection's backend on the server: what a notification it sends names as its sender.
    var backendProcess: Int32 {
        PQbackendPID(connection)
    }
}

/// A `NOTIFY` received: its payload, and the process id of the backend whose transaction sent it.
struct PGNotification {
    let payload: String
    let sender: Int32
}

/// A statement and its parameters (`$1…`, as text; `nil` is SQL NULL), for `PGConnection.execute(_:)` and
/// `pipeline(_:)`. A named one is prepared once per connection: its name stands for this `sql` everywhere.
struct PGStatement {
    let sql: String
    let parameters: [String?]
    let name: String?

    init(_ sql: String, _ parameters: [String?] = [], name: String? = nil) {
        self.sql = sql
        self.parameters = parameters
        self.name = name
    }
}

/// One row of a result, read in place (`PGConnection.execute(_:reading:)`): valid only while it is read.
struct PGRow {
    fileprivate let result: OpaquePointer
    fileprivate let row: Int32

    /// The bytes of a column (without the NUL libpq ends them with), or nil for NULL.
    subscript(column: Int) -> UnsafeRawBufferPointer? {
        guard PQgetisnull(result, row, Int32(column)) == 0, let value = PQgetvalue(result, row, Int32(column)) else {
            return nil
        }
        return UnsafeRawBufferPointer(start: value, count: Int(PQgetlength(result, row, Int32(column))))
    }

    /// A column as text, or nil for NULL.
    func text(_ column: Int) -> String? {
        self[column].map { String(decoding: $0, as: UTF8.self) }
    }
}

/// What PostgreSQL or libpq said went wrong.
struct PGError: Error, Sendable, CustomStringConvertible {
    /// libpq's message, trimmed.
    let description: String
    /// The SQLSTATE, when the server sent one.
    let state: String?

    /// Whether PostgreSQL cancelled the statement for taking too long (`statement_timeout`, `lock_timeout`), or the
    /// writer gave up on a batch past its deadline.
    var isTimeout: Bool { state == "57014" || state == "55P03" }

    init(_ message: String, state: String? = nil) {
        description = message.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        self.state = state
    }
}

/// Calls `body` with `strings` as C strings (`nil` stays a null pointer), valid for the call.
/// A null pointer ends the array, as `PQconnectdbParams` wants it.
private func withCStrings<R>(
    _ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R
) -> R {
    let pointers: [UnsafePointer<CChar>?] = strings.map { $0.map { UnsafePointer(strdup($0)!) } } + [nil]
    defer { for pointer in pointers { free(UnsafeMutableRawPointer(mutating: pointer)) } }
    return pointers.withUnsafeBufferPointer { body(strings.isEmpty ? nil : $0.baseAddress) }
}
