import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension RawHTTP {
    /// Sends `requests` one after another on a single keep-alive connection, reading each
    /// response by its `Content-Length` before sending the next.
    /// - Returns: the responses, in order; fewer than requested if the server closed early.
    public static func keepAlive(_ requests: [[UInt8]], port: Int, timeout: Double = 30) async throws -> [WireResponse] {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try keepAliveBlocking(requests, port: port, timeout: timeout) })
            }.start()
        }
    }

    /// A request without `Connection: close`.
    public static func persistentRequest(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil
    ) -> [UInt8] {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        return Array((head + "\r\n").utf8) + (body ?? [])
    }

    private static func keepAliveBlocking(_ requests: [[UInt8]], port: Int, timeout: Double) throws -> [WireResponse] {
        let fd = try connect(port: port, timeout: timeout)
        defer { close(fd) }
        var responses: [WireResponse] = []
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        for request in requests {
            let sent = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent == request.count else { return responses }
            // Read until one whole response (head + Content-Length bytes) is buffered.
            while true {
                if let (response, used) = try complete(pending) {
                    responses.append(response)
                    pending.removeFirst(used)
                    break
                }
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard n > 0 else { return responses }
                pending.append(contentsOf: buffer[0..<n])
            }
        }
        return responses
    }

    /// One complete response at the start of `data`, and how many bytes it took.
    private static func complete(_ data: [UInt8]) throws -> (WireResponse, Int)? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = data.indices.first(where: { data[$0...].starts(with: separator) }) else { return nil }
        let head = try parse(Array(data[..<(end + 4)]))
        let length = head.headers["content-length"].flatMap(Int.init) ?? 0
        guard data.count >= end + 4 + length else { return nil }
        var response = head
        response.body = Array(data[(end + 4)..<(end + 4 + length)])
        return (response, end + 4 + length)
    }
}
