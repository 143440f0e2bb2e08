import Foundation
import JSON
import Locking

#if canImport(Glibc)
import Glibc
#endif

/// An HTTP receiver for webhook deliveries, for tests: it listens on 127.0.0.1 (an ephemeral
/// port), answers each request with the next status of a script, and records what it got.
/// Accepting and reading run on its own thread with blocking sockets. `answer` can make it misbehave
/// for some requests: never answer, answer with bytes of its own, stream a body forever, or trickle its head; and
/// `stalling` holds every request unanswered (a delivery in flight that has not arrived). The one webhook receiver of
/// the tests.
public final class WebhookReceiver: @unchecked Sendable {
    // `@unchecked Sendable` invariant: `listener` and `port` are set in `init` only; everything
    // else the threads share sits behind `state`.

    /// One request as received.
    public struct Request: Sendable {
        public var method: String
        public var target: String
        /// Lower-cased names.
        public var headers: [String: String]
        public var body: [UInt8]
        public var receivedAt: ContinuousClock.Instant
        /// Whether it was held unanswered (`stalling`, or `Answer.never`).
        public var held = false

        public var text: String { String(decoding: body, as: UTF8.self) }
        public var json: JSONValue { (try? JSONParser.parse(body)) ?? .null }
    }

    /// How a request is answered.
    public enum Answer: Sendable {
        /// With the next status of the script.
        case scripted
        /// Not at all: the connection is held open until the client closes it or the receiver stops.
        case never
        /// With these bytes, then the connection is closed.
        case bytes([UInt8])
        /// `200` with a chunked body of zeros that never ends (until the client goes away).
        case endless
        /// A status line that never ends: `HTTP/1.1 200 ` then a reason phrase, one byte every 50 ms.
        case trickle
    }

    private struct State {
        var statuses: [Int]
        var requests: [Request] = []
        var stopped = false
        var stalling = false
    }

    public let port: Int
    /// The loopback address it listens on.
    public let host: String
    private let listener: Int32
    private let state: Lock<State>
    private let responseHeaders: [(String, String)]
    private let answer: @Sendable (Request) -> Answer

    /// Starts listening.
    /// - Parameters:
    ///   - statuses: the status of each answer in turn; after the last, the last repeats.
    ///   - host: a loopback address to listen on (any of 127.0.0.0/8).
    ///   - responseHeaders: extra headers on every answer (a `Location`, say).
    ///   - answer: how each request is answered (by default with the script).
    public init(statuses: [Int] = [200], host: String = "127.0.0.1", responseHeaders: [(String, String)] = [],
         answer: @escaping @Sendable (Request) -> Answer = { _ in .scripted }) throws {
        self.host = host
        self.responseHeaders = responseHeaders
        self.answer = answer
        state = Lock(State(statuses: statuses.isEmpty ? [200] : statuses))
        (listener, port) = try Self.listen(on: host)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// A socket listening on `host` (IPv4, or IPv6 when it holds a colon) at an ephemeral port, and the port.
    private static func listen(on host: String) throws -> (Int32, Int) {
        let family = host.contains(":") ? AF_INET6 : AF_INET
        let fd = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawHTTPError(description: "socket: \(errno)") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var storage = sockaddr_storage()
        let size: Int
        if family == AF_INET6 {
            size = MemoryLayout<sockaddr_in6>.size
            withUnsafeMutableBytes(of: &storage) { raw in
                let address = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
                address.pointee.sin6_family = sa_family_t(AF_INET6)
                _ = inet_pton(AF_INET6, host, &address.pointee.sin6_addr)
            }
        } else {
            size = MemoryLayout<sockaddr_in>.size
            withUnsafeMutableBytes(of: &storage) { raw in
                let address = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
                address.pointee.sin_family = sa_family_t(AF_INET)
                address.pointee.sin_addr.s_addr = inet_addr(host)
            }
        }
        var length = socklen_t(size)
        let bound = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound, Glibc.listen(fd, 128) == 0 else {
            close(fd)
            throw RawHTTPError(description: "bind/listen on \(host): errno \(errno)")
        }
        // sin_port and sin6_port sit at the same offset.
        let port = withUnsafeBytes(of: &storage) { $0.load(fromByteOffset: 2, as: UInt16.self) }
        return (fd, Int(UInt16(bigEndian: port)))
    }

    /// A URL on this receiver.
    public func url(_ path: String = "/hook") -> String {
        host.contains(":") ? "http://[\(host)]:\(port)\(path)" : "http://\(host):\(port)\(path)"
    }

    /// Stops accepting. Call it when done: the accept thread keeps the receiver alive until then.
    public func stop() {
        state.withLock { state in
            // Wakes the accept loop, which closes the socket.
            if !state.stopped { shutdown(listener, Int32(SHUT_RDWR)) }
            state.stopped = true
        }
    }

    /// The requests received so far, in order.
    public var requests: [Request] {
        state.withLock { $0.requests }
    }

    /// The requests received so far and answered (not held), in order.
    public var answered: [Request] {
        requests.filter { !$0.held }
    }

    /// The requests held unanswered so far, in order.
    public var held: [Request] {
        requests.filter(\.held)
    }

    /// Whether every request from now on is held unanswered, whatever `answer` says.
    public var stalling: Bool {
        get { state.withLock { $0.stalling } }
        set { state.withLock { $0.stalling = newValue } }
    }

    /// Waits until at least `count` requests arrived (or `timeout` seconds, stretched by `TestTime`, pass).
    public func waitForRequests(_ count: Int, timeout: Double = 30) async throws -> [Request] {
        _ = await TestTime.until(timeout, every: .milliseconds(20)) { requests.count >= count }
        return requests
    }

    // MARK: on the receiver's threads

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                close(listener)  // stopped
                return
            }
            Thread { [self] in serve(connection) }.start()
        }
    }

    private func serve(_ fd: Int32) {
        defer { close(fd) }
        var tv = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        func fill() -> Bool {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { return false }
            data += buffer[0..<n]
            return true
        }
        let separator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            headEnd = data.indices.first { data[$0...].starts(with: separator) }
            if headEnd == nil, !fill() { return }
        }
        let head = Array(data[..<headEnd!])
        data.removeFirst(headEnd! + 4)
        let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ").map(String.init)
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        if headers["expect"]?.lowercased() == "100-continue" {
            write(fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
        }
        var body: [UInt8] = []
        if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            while true {
                var crlf = data.indices.first { data[$0...].starts(with: [13, 10]) }
                while crlf == nil {
                    guard fill() else { return }
                    crlf = data.indices.first { data[$0...].starts(with: [13, 10]) }
                }
                let size = Int(String(decoding: data[..<crlf!], as: UTF8.self), radix: 16) ?? 0
                data.removeFirst(crlf! + 2)
                while data.count < size + 2 { guard fill() else { return } }
                body += data[..<size]
                data.removeFirst(size + 2)
                if size == 0 { break }
            }
        } else {
            let length = headers["content-length"].flatMap(Int.init) ?? 0
            while data.count < length { guard fill() else { return } }
            body = Array(data[..<length])
        }
        let request = Request(method: requestLine.first ?? "", target: requestLine.count > 1 ? requestLine[1] : "",
                              headers: headers, body: body, receivedAt: .now)
        let (index, stalling) = state.withLock { state in
            state.requests.append(request)
            return (state.requests.count - 1, state.stalling)
        }
        let answering = stalling ? .never : answer(request)
        if case .never = answering { state.withLock { $0.requests[index].held = true } }
        switch answering {
        case .scripted: break
        case .never:
            holdOpen(fd)
            return
        case .bytes(let bytes):
            write(fd, bytes)
            return
        case .endless:
            write(fd, Array("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n".utf8))
            let chunk = Array("10000\r\n".utf8) + [UInt8](repeating: 0x30, count: 0x10000) + [13, 10]
            while !isStopped, write(fd, chunk) {}
            return
        case .trickle:
            write(fd, Array("HTTP/1.1 200 ".utf8))
            while !isStopped, write(fd, [UInt8(ascii: "z")]) { usleep(50_000) }
            return
        }
        let status = state.withLock { state -> Int in
            state.statuses.count > 1 ? state.statuses.removeFirst() : state.statuses[0]
        }
        let reply = #"{"received":true}"#
        var answer = "HTTP/1.1 \(status) Status\r\nContent-Type: application/json\r\n"
        for (name, value) in responseHeaders { answer += "\(name): \(value)\r\n" }
        answer += "Content-Length: \(reply.utf8.count)\r\nConnection: close\r\n\r\n"
        write(fd, Array((answer + reply).utf8))
    }

    private var isStopped: Bool {
        state.withLock { $0.stopped }
    }

    /// Keeps the connection open without answering until the client closes it or the receiver stops.
    private func holdOpen(_ fd: Int32) {
        var scratch = [UInt8](repeating: 0, count: 4096)
        while !isStopped {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 100) >= 0 else { return }
            if entry.revents != 0, scratch.withUnsafeMutableBytes({ recv(fd, $0.baseAddress, $0.count, 0) }) <= 0 {
                return
            }
        }
    }

    /// Sends all of `bytes`; false when the connection failed first.
    @discardableResult
    private func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            sent += n
        }
        return true
    }
}
