import Foundation
import HTTPTestSupport
import Locking

/// A Server-Sent Events reader on a thread of its own: it records the `id` and `event` of each event of
/// `GET /v1/events` from one instance until `close()`.
final class EventStream: Sendable {
    struct Event: Sendable, Equatable {
        var id: UInt64
        var kind: String
        var data: String
    }

    private let fd: Int32
    /// The events read so far, shared with the reading thread.
    private final class Received: Sendable {
        let events = Lock<[Event]>([])
    }

    private let received = Received()

    /// Connects and starts reading after `lastEventID`.
    init(port: Int, lastEventID: UInt64) throws {
        fd = try RawHTTP.connect(port: port, timeout: 60)
        let request = "GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
            + "Last-Event-ID: \(lastEventID)\r\n\r\n"
        _ = Array(request.utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        let descriptor = fd
        let received = received
        Thread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            var wire: [UInt8] = []
            var body: [UInt8] = []
            var inBody = false
            var current = Event(id: 0, kind: "", data: "")
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                if count < 0, errno == EAGAIN || errno == EINTR { continue }
                guard count > 0 else {
                    Glibc.close(descriptor)
                    return
                }
                wire += buffer[0..<count]
                if !inBody {
                    guard let end = Self.find([13, 10, 13, 10], in: wire) else { continue }
                    wire.removeFirst(end + 4)
                    inBody = true
                }
                // Chunked transfer encoding: a hex size line, that many bytes, CRLF.
                while let lineEnd = Self.find([13, 10], in: wire),
                      let size = Int(String(decoding: wire[..<lineEnd], as: UTF8.self), radix: 16),
                      wire.count >= lineEnd + 2 + size + 2 {
                    body += wire[(lineEnd + 2)..<(lineEnd + 2 + size)]
                    wire.removeFirst(lineEnd + 2 + size + 2)
                }
                while let newline = body.firstIndex(of: 10) {
                    let line = String(decoding: body[..<newline], as: UTF8.self)
                    body.removeFirst(newline + 1)
                    if line.hasPrefix("id: ") { current.id = UInt64(line.dropFirst(4)) ?? 0 }
                    if line.hasPrefix("event: ") { current.kind = String(line.dropFirst(7)) }
                    if line.hasPrefix("data: ") { current.data = String(line.dropFirst(6)) }
                    if line.isEmpty, !current.kind.isEmpty {
                        let event = current
                        received.events.withLock { $0.append(event) }
                        current = Event(id: 0, kind: "", data: "")
                    }
                }
            }
        }.start()
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        return (0...(bytes.count - needle.count)).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    /// The events read so far.
    var events: [Event] { received.events.withLock { $0 } }

    /// Hangs up (the reading thread then closes the socket).
    func close() {
        shutdown(fd, Int32(SHUT_RDWR))
    }
}
