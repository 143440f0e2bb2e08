@testable import AlertAPI
import Foundation
import Locking

#if canImport(Glibc)
import Glibc
import JSON
#endif

/// An HTTP receiver for webhook deliveries, for tests: it listens on 127.0.0.1 (an ephemeral
/// port), answers each request with the next status of a script, and records what it got.
/// Accepting and reading run on its own thread with blocking sockets.
final class WebhookReceiver: @unchecked Sendable {
    // `@unchecked Sendable` invariant: `listener` and `port` are set in `init` only; everything
    // else the threads share sits behind `state`.

    /// One request as received.
    struct Request: Sendable {
        var method: String
        var target: String
        /// Lower-cased names.
        var headers: [String: String]
        var body: [UInt8]
        var receivedAt: ContinuousClock.Instant

        var text: String { String(decoding: body, as: UTF8.self) }
        var json: JSONValue { (try? JSONParser.parse(body)) ?? .null }
    }

    private struct State {
        var statuses: [Int]
        var requests: [Request] = []
        var stopped = false
    }

    let port: Int
    /// The loopback address it listens on.
    let host: String
    private let listener: Int32
    private let state: Lock<State>
    private let responseHeaders: [(String, String)]

    /// Starts listening.
    /// - Parameters:
    ///   - statuses: the status of each answer in turn; after the last, the last repeats.
    ///   - host: a loopback address to listen on (any of 127.0.0.0/8).
    ///   - responseHeaders: extra headers on every answer (a `Location`, say).
    init(statuses: [Int] = [200], host: String = "127.0.0.1", responseHeaders: [(String, String)] = []) throws {
        self.host = host
        self.responseHeaders = responseHeaders
        state = Lock(State(statuses: statuses.isEmpty ? [200] : statuses))
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawHTTPError(description: "socket: \(errno)") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr(host)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw RawHTTPError(description: "bind/listen: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        listener = fd
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// A URL on this receiver.
    func url(_ path: String = "/hook") -> String {
        "http://\(host):\(port)\(path)"
    }

    /// Stops accepting. Call it when done: the accept thread keeps the receiver alive until then.
    func stop() {
        state.withLock { state in
            // Wakes the accept loop, which closes the socket.
            if !state.stopped { shutdown(listener, Int32(SHUT_RDWR)) }
            state.stopped = true
        }
    }

    /// The requests received so far, in order.
    var requests: [Request] {
        state.withLock { $0.requests }
    }

    /// Waits until at least `count` requests arrived (or `timeout` seconds pass).
    func waitForRequests(_ count: Int, timeout: Double = 15) async throws -> [Request] {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while ContinuousClock.now < deadline {
            let received = requests
            if received.count >= count { return received }
            try await Task.sleep(for: .milliseconds(20))
        }
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
        let status = state.withLock { state -> Int in
            state.requests.append(request)
            return state.statuses.count > 1 ? state.statuses.removeFirst() : state.statuses[0]
        }
        let reply = #"{"received":true}"#
        var answer = "HTTP/1.1 \(status) Status\r\nContent-Type: application/json\r\n"
        for (name, value) in responseHeaders { answer += "\(name): \(value)\r\n" }
        answer += "Content-Length: \(reply.utf8.count)\r\nConnection: close\r\n\r\n"
        write(fd, Array((answer + reply).utf8))
    }

    private func write(_ fd: Int32, _ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            sent += n
        }
    }
}
