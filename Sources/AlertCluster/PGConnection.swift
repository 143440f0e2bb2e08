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
        self.connection = connection
    }

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
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            throw PGError(String(cString: PQresultErrorMessage(result)), state: state)
        }
        let rows = PQntuples(result)
        let columns = PQnfields(result)
        return (0..<rows).map { row in
            (0..<columns).map { column in
                PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column))
            }
        }
    }

    /// Waits up to `timeout` milliseconds for the server to send something, then reads the notifications that came.
    ///
    /// - Returns: The payloads of the notifications received (possibly none).
    func notifications(waiting timeout: Int32) throws(PGError) -> [String] {
        var poller = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
        if poll(&poller, 1, timeout) > 0 {
            guard PQconsumeInput(connection) == 1 else { throw PGError(String(cString: PQerrorMessage(connection))) }
        }
        var payloads: [String] = []
        while let notification = PQnotifies(connection) {
            payloads.append(String(cString: notification.pointee.extra))
            PQfreemem(notification)
        }
        return payloads
    }
}

/// What PostgreSQL or libpq said went wrong.
struct PGError: Error, Sendable, CustomStringConvertible {
    /// libpq's message, trimmed.
    let description: String
    /// The SQLSTATE, when the server sent one.
    let state: String?

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
