import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One persistent HTTP/1.1 connection, as curl with several URLs or a dashboard uses it.
/// Each call runs on its own thread (the socket blocks). Responses are framed by
/// `Content-Length` (204, 1xx and HEAD have no body).
final class KeepAliveClient: @unchecked Sendable {
    private var fd: Int32
    private var buffered: [UInt8] = []

    init(port: Int, timeout: Double = 10) throws {
        fd = try RawHTTP.connect(port: port, timeout: timeout)
    }

    deinit { hangUp() }

    /// Closes the connection (a client that goes away).
    func hangUp() {
        if fd >= 0 { close(fd) }
        fd = -1
    }

    /// Sends one request (keep-alive) and reads one final response.
    func send(_ method: String, _ target: String, body: String? = nil,
              headers: [(String, String)] = []) async throws -> WireResponse {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.utf8.count)\r\n" }
        let bytes = Array((head + "\r\n").utf8) + Array((body ?? "").utf8)
        return try await onThread { [self] in
            try write(bytes)
            return try readResponse(head: method == "HEAD")
        }
    }

    /// Sends bytes as they are.
    func write(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw RawHTTPError(description: "send failed: errno \(errno)") }
            sent += n
        }
    }

    /// Reads one response, skipping interim (1xx) ones unless `interim` is true.
    func readResponse(head: Bool = false, interim: Bool = false) throws -> WireResponse {
        while true {
            let headEnd = try readUntilHeadEnd()
            var response = try RawHTTP.parse(Array(buffered[..<headEnd]))
            buffered.removeFirst(headEnd)
            if (100..<200).contains(response.status) {
                if interim { return response }
                continue
            }
            let length = head || response.status == 204 ? 0 : Int(response.headers["content-length"] ?? "") ?? -1
            guard length >= 0 else { throw RawHTTPError(description: "no Content-Length on \(response.status)") }
            while buffered.count < length { try fill() }
            response.body = Array(buffered[..<length])
            buffered.removeFirst(length)
            return response
        }
    }

    /// The bytes after the responses read so far, until the server closes the connection.
    func readToEnd() async throws -> [UInt8] {
        try await onThread { [self] in
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n == 0 { break }
                guard n > 0 else { throw RawHTTPError(description: "not closed in time (errno \(errno))") }
                buffered += chunk[..<n]
            }
            defer { buffered = [] }
            return buffered
        }
    }

    /// Runs blocking socket work off Swift's cooperative pool.
    func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }

    private func readUntilHeadEnd() throws -> Int {
        let separator: [UInt8] = [13, 10, 13, 10]
        while true {
            if let end = buffered.indices.first(where: { buffered[$0...].starts(with: separator) }) {
                return end + 4
            }
            try fill()
        }
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { throw RawHTTPError(description: "connection closed or timed out (errno \(errno))") }
        buffered += chunk[..<n]
    }
}
