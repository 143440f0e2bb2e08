import Foundation
import HTTPTestSupport
import JSON
import Locking

#if canImport(Glibc)
import Glibc
#endif

/// Follows `GET /v1/events` as a browser's `EventSource` does: whenever the stream ends (alertd killed, restarted)
/// it connects again with `Last-Event-ID` set to the last id it got, until stopped. It reads on a thread of its own
/// (the socket blocks), checks that ids run on by one, and hands every event to `deliver`.
final class EventFollower: Sendable {
    /// One event as the stream carried it.
    struct Event: Sendable {
        let id: UInt64
        let type: String
        let alert: JSONValue
    }

    private struct Control {
        var stopped = false
        var finished = false
        var last: UInt64
        var connections = 0
    }

    let name: String
    private let token: String?
    private let port: @Sendable () -> Int
    private let deliver: @Sendable (Event, _ connection: Int) -> Void
    private let trouble: @Sendable (String) -> Void
    private let control: Lock<Control>

    /// Starts following at once.
    /// - Parameters:
    ///   - name: for messages.
    ///   - cursor: the first `Last-Event-ID` (0: from the first event).
    ///   - token: the bearer token it follows with, if alertd has tokens.
    ///   - port: the port to connect to, asked at each connection (it may change across restarts).
    ///   - deliver: gets each event and the number of the stream (1, 2, …) that read it.
    ///   - trouble: gets what went wrong: a refused cursor, an id out of sequence, a stream that is not SSE.
    init(name: String, from cursor: UInt64, token: String? = nil, port: @escaping @Sendable () -> Int,
         deliver: @escaping @Sendable (Event, Int) -> Void, trouble: @escaping @Sendable (String) -> Void) {
        self.name = name
        self.token = token
        self.port = port
        self.deliver = deliver
        self.trouble = trouble
        control = Lock(Control(last: cursor))
        let thread = Thread { [self] in follow() }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// The id of the last event read.
    var lastID: UInt64 { control.withLock { $0.last } }

    /// How many streams alertd accepted (`200`).
    var connections: Int { control.withLock { $0.connections } }

    /// Stops following and waits (at most 5 s) for the reader to end.
    func stop() async {
        control.withLock { $0.stopped = true }
        let deadline = ContinuousClock.now + TestTime.bound(.seconds(5))
        while !control.withLock({ $0.finished }), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    // MARK: the reader thread

    private var stopped: Bool { control.withLock { $0.stopped } }

    private func follow() {
        while !stopped {
            if !stream(from: lastID) {
                Thread.sleep(forTimeInterval: 0.01)  // refused: alertd is not back yet (a client's back-off)
            }
        }
        control.withLock { $0.finished = true }
    }

    /// Reads one stream until it ends; false when alertd could not be reached.
    private func stream(from cursor: UInt64) -> Bool {
        guard let fd = try? RawHTTP.connect(port: port(), timeout: 0.2) else { return false }
        defer { close(fd) }
        let request = "GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
            + (token.map { "Authorization: Bearer \($0)\r\n" } ?? "") + "Last-Event-ID: \(cursor)\r\n\r\n"
        let bytes = Array(request.utf8)
        guard bytes.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else {
            return false
        }
        var decoder = SSEDecoder()
        var connection = 0
        var buffer = [UInt8](repeating: 0, count: 32 * 1024)
        while !stopped {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }
            guard count > 0 else { return true }  // closed or reset: alertd went away
            do {
                for item in try decoder.feed(buffer[..<count]).0 {
                    guard handle(item, cursor: cursor, connection: &connection) else { return true }
                }
            } catch {
                trouble("\(name): the stream from Last-Event-ID \(cursor) did not parse: \(error)")
                return true
            }
            if decoder.finished { return true }
        }
        return true
    }

    /// Takes one decoded item; false to hang up. `connection` is set to the stream's number once it opens.
    private func handle(_ item: SSEItem, cursor: UInt64, connection: inout Int) -> Bool {
        switch item {
        case .head(let response):
            guard response.status == 200 else {
                // A refused cursor after a restart means events the stream had shown were lost.
                if response.status != 503 {
                    trouble("\(name): GET /v1/events with Last-Event-ID \(cursor) answered \(response)")
                    control.withLock { $0.stopped = true }
                }
                return false
            }
            connection = control.withLock { state -> Int in
                state.connections += 1
                return state.connections
            }
            return true
        case .comment, .retry, .closed:
            return true
        case .message(let message):
            let (id, type, data) = (message.id, message.event, message.data)
            guard type != "dropped" else { return false }  // too slow a reader (not a durability matter): reconnect
            let expected = lastID + 1
            guard let number = id.flatMap({ UInt64($0) }), number == expected,
                  let alert = try? JSONParser.parse(Array(data.utf8)) else {
                trouble("\(name): after event \(expected - 1) (connection \(connection), from Last-Event-ID "
                    + "\(cursor)) the stream carried id=\(id ?? "none") event=\(type) data=\(data.prefix(300))")
                control.withLock { $0.stopped = true }
                return false
            }
            control.withLock { $0.last = number }
            deliver(Event(id: number, type: type, alert: alert), connection)
            return true
        }
    }
}
