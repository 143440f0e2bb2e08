import Foundation
import JSON

/// Structured request and event logs: one JSON object a line with a timestamp, a level and
/// a message. Secure field values are never passed to it, so they can never be logged.
public struct AccessLog: Sendable {
    let sink: LogSink?
    let logRequests: Bool

    /// - Parameters:
    ///   - sink: where lines go; nil for nowhere.
    ///   - logRequests: whether `request` logs each answered request (`event` always logs).
    public init(sink: LogSink?, logRequests: Bool) {
        self.sink = sink
        self.logRequests = logRequests
    }

    /// Logs one answered request: its route template (never the id or query), the name of the token that made it
    /// (never the token), and the client's address (the one a trusted proxy names, behind one).
    func request(id: String, method: String, route: String, status: Int, caller: String?, client: String?,
                 seconds: Double) {
        guard logRequests, let sink else { return }
        var line = Self.begin("info", "request")
        line.member("requestId"); line.write(id)
        line.member("method"); line.write(method)
        line.member("route"); line.write(route)
        line.member("status"); line.write(status)
        if let caller { line.member("caller"); line.write(caller) }
        if let client { line.member("client"); line.write(client) }
        line.member("durationMs"); line.write((seconds * 1_000_000).rounded() / 1000)
        line.endObject()
        sink.write(line)
    }

    /// Logs a notable event with string fields.
    public func event(_ level: String, _ message: String, _ fields: KeyValuePairs<String, String> = [:]) {
        guard let sink else { return }
        var line = Self.begin(level, message)
        for (key, value) in fields {
            line.key(key); line.write(value)
        }
        line.endObject()
        sink.write(line)
    }

    private static func begin(_ level: String, _ message: String) -> JSONWriter {
        var line = JSONWriter(capacity: 192)
        line.beginObject()
        line.member("ts"); line.write(RFC3339.format(Date()))
        line.member("level"); line.write(level)
        line.member("msg"); line.write(message)
        return line
    }
}
