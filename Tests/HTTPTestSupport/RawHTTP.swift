import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A response as read off the wire.
public struct WireResponse: Sendable {
    public var status: Int
    /// Header names lower-cased.
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public var text: String { String(decoding: body, as: UTF8.self) }

    /// Whether the whole response arrived (its `Content-Length` bytes; none for a 204): only then was anything
    /// acknowledged.
    public var isWhole: Bool {
        status == 204 || headers["content-length"].flatMap(Int.init) == body.count
    }
}

public struct RawHTTPError: Error, CustomStringConvertible {
    public let description: String

    public init(description: String) {
        self.description = description
    }
}

/// A deliberately small HTTP/1.1 client over a blocking POSIX socket, run on its own
/// thread so it never blocks Swift's cooperative pool (which the in-process server needs).
/// It sends exactly the bytes it is given: tests use it for malformed and oversize input too.
public enum RawHTTP {
    /// Sends `bytes` to 127.0.0.1:`port` and reads the response until the server closes.
    /// - Parameters:
    ///   - bytes: the whole request, as it should appear on the wire.
    ///   - port: the server's port.
    ///   - timeout: seconds to wait for the response before failing.
    public static func exchange(_ bytes: [UInt8], port: Int, timeout: Double = 30) async throws -> WireResponse {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try exchangeBlocking(bytes, port: port, timeout: timeout) })
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// Builds a request with `Connection: close` and a correct `Content-Length`.
    public static func request(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil
    ) -> [UInt8] {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        return Array(head.utf8) + (body ?? [])
    }

    public static func connect(port: Int, timeout: Double) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw RawHTTPError(description: "socket: \(errno)") }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        let connected = Loopback.connect(fd, port: port)
        guard connected == 0 else {
            close(fd)
            throw RawHTTPError(description: "connect to port \(port): errno \(errno)")
        }
        return fd
    }

    private static func exchangeBlocking(_ bytes: [UInt8], port: Int, timeout: Double) throws -> WireResponse {
        let fd = try connect(port: port, timeout: timeout)
        defer { close(fd) }
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            // The server may answer (413) and close before reading everything: stop sending then.
            if n <= 0 { break }
            sent += n
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { received.append(contentsOf: buffer[0..<n]); continue }
            if n == 0 || errno == ECONNRESET { break }
            throw RawHTTPError(description: "no complete response within \(timeout) s (errno \(errno)); got "
                + "\(received.count) bytes")
        }
        return try parse(received)
    }

    public static func parse(_ data: [UInt8]) throws -> WireResponse {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = data.indices.first(where: { data[$0...].starts(with: separator) }) else {
            throw RawHTTPError(description: "no response head in \(data.count) bytes")
        }
        let lines = String(decoding: data[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw RawHTTPError(description: "bad status line '\(lines[0])'")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        var body = Array(data[(end + 4)...])
        if let length = headers["content-length"].flatMap(Int.init), body.count > length {
            body = Array(body[..<length])
        }
        return WireResponse(status: status, headers: headers, body: body)
    }
}

extension WireResponse: CustomStringConvertible {
    public var description: String { "HTTP \(status) \(headers["content-type"] ?? "") \(text.prefix(400))" }
}
