import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A blocking client socket that tells exactly how an exchange ended: a whole response, or a
/// refused connection, a reset (`ECONNRESET` from the socket), an end of stream. Run it on a
/// thread of its own (`WireSocket.onThread`), never on Swift's cooperative pool.
///
/// `@unchecked Sendable` invariant: one thread at a time uses a socket (`fd` and `buffered`):
/// a test creates it on a thread and hands it over, done with it, only through `onThread`'s
/// result (which orders the two threads), and never uses it from two threads at once.
final class WireSocket: @unchecked Sendable {
    enum Failure: Error, Equatable {
        /// `connect` was refused: the server no longer listens.
        case refused
        /// The server reset the connection.
        case reset
        /// The server closed the connection after `bytes` bytes of a response.
        case closed(bytes: Int)
        case timeout
        case other(Int32)
    }

    private(set) var fd: Int32
    private var buffered: [UInt8] = []

    /// Connects to 127.0.0.1:`port`, from 127.0.0.`source` when given.
    /// - Parameter receiveBuffer: `SO_RCVBUF` in bytes, set before connecting (small: the kernel holds little of what
    ///   the server sends and the test does not read).
    init(port: Int, source: UInt8? = nil, timeout: Double = 10, receiveBuffer: Int32? = nil) throws(Failure) {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .other(errno) }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        if let source, Loopback.bindSource(fd, host: source) != 0 {
            let number = errno
            hangUp()
            throw .other(number)
        }
        guard Loopback.connect(fd, port: port) == 0 else {
            let number = errno
            hangUp()
            throw number == ECONNREFUSED ? .refused : number == ECONNRESET ? .reset : .other(number)
        }
    }

    deinit { hangUp() }

    func hangUp() {
        if fd >= 0 { close(fd) }
        fd = -1
    }

    /// Sends all of `bytes`.
    func send(_ bytes: [UInt8]) throws(Failure) {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else {
                throw errno == ECONNRESET ? .reset : errno == EPIPE ? .closed(bytes: 0) : .other(errno)
            }
            sent += n
        }
    }

    /// Whether the server closed its end already (looked at without waiting).
    var peerClosed: Bool {
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }

    /// Reads one response framed by `Content-Length` (none for 204, nor for the answer to HEAD).
    /// - Parameter head: the request was HEAD: the response has no body, whatever its headers say.
    func readResponse(head: Bool = false) throws(Failure) -> WireResponse {
        let (headEnd, parsed) = try readHead()
        var response = parsed
        let length = response.status == 204 || head ? 0 : Int(response.headers["content-length"] ?? "") ?? 0
        while buffered.count < headEnd + length { try fill() }
        response.body = Array(buffered[headEnd..<(headEnd + length)])
        buffered.removeFirst(headEnd + length)
        return response
    }

    /// Reads a response's head (status line and headers), and of its body no more than came with it; returns where
    /// the head ends in `buffered`, and the head with an empty body.
    @discardableResult
    func readHead() throws(Failure) -> (end: Int, response: WireResponse) {
        let separator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            headEnd = buffered.indices.first { buffered[$0...].starts(with: separator) }.map { $0 + 4 }
            if headEnd == nil { try fill() }
        }
        guard let headEnd, let response = try? RawHTTP.parse(Array(buffered[..<headEnd])) else { throw .other(-1) }
        return (headEnd, response)
    }

    /// Sends a request and reads its response.
    func exchange(_ bytes: [UInt8]) throws(Failure) -> WireResponse {
        try send(bytes)
        return try readResponse()
    }

    private func fill() throws(Failure) {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n > 0 {
            buffered += chunk[..<n]
            return
        }
        if n == 0 { throw .closed(bytes: buffered.count) }
        switch errno {
        case ECONNRESET: throw .reset
        case EAGAIN, EWOULDBLOCK: throw .timeout
        default: throw .other(errno)
        }
    }

    /// Runs blocking work on a thread of its own.
    static func onThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: work()) }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }
}
