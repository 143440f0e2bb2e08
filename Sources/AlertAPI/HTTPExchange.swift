import Foundation
import Locking
import SystemCalls

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One POST to an `http://` callback over a socket of its own: connect, send, read the answer's status line, close.
///
/// Each address the host resolves to is checked against the allow list (`WebhookPolicy.admits`) just before a socket
/// connects to it: the address connected to is the one checked, so a name cannot resolve around the list.
///
/// It never asks for compression (`Accept-Encoding: identity`), reads at most `headLimit` bytes of the answer and
/// never its body, and every step waits at most until `deadline`. `run` blocks: call it on a thread of its own;
/// `cancel` (from any thread) ends it early.
final class HTTPExchange: Sendable {
    /// Why an exchange did not get a status.
    enum Failure: Error, Equatable {
        case timedOut
        case cancelled
        /// The host's addresses are none that the allow list admits.
        case refused
        case failed(String)
    }

    /// Most bytes of the answer read: enough for the status line and interim (1xx) answers, never the body.
    static let headLimit = 4096

    private let url: CallbackURL
    private let policy: WebhookPolicy
    private let request: [UInt8]
    private let deadline: ContinuousClock.Instant
    /// The socket while one is open (-1 otherwise), and whether `cancel` was called.
    private let socket = Lock<(fd: Int32, cancelled: Bool)>((-1, false))

    /// - Parameters:
    ///   - url: where to POST.
    ///   - policy: the addresses it may connect to.
    ///   - headers: more header lines (name, value); `Host`, `Content-Length`, `Accept-Encoding` and `Connection`
    ///     are set here.
    ///   - body: the request body.
    ///   - deadline: when the exchange gives up.
    init(url: CallbackURL, policy: WebhookPolicy, headers: [(String, String)], body: [UInt8],
         deadline: ContinuousClock.Instant) {
        self.url = url
        self.policy = policy
        self.deadline = deadline
        var head = "POST \(url.target) HTTP/1.1\r\nHost: \(url.authority)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let userinfo = url.userinfo {
            let credentials = userinfo.removingPercentEncoding ?? userinfo
            head += "Authorization: Basic \(Data(credentials.utf8).base64EncodedString())\r\n"
        }
        head += "Content-Length: \(body.count)\r\nAccept-Encoding: identity\r\nConnection: close\r\n\r\n"
        request = Array(head.utf8) + body
    }

    /// Ends `run` soon: the socket is shut down, and none is opened after this.
    func cancel() {
        socket.withLock { socket in
            socket.cancelled = true
            if socket.fd >= 0 { shutdown(socket.fd, Int32(SHUT_RDWR)) }
        }
    }

    /// Sends the request and returns the answer's status (the first that is not 1xx).
    func run() -> Result<Int, Failure> {
        var lastError = "the host has no address"
        let resolved = Self.addresses(of: url)
        let admitted = resolved.filter { policy.admits($0.text, for: url.host) }
        if admitted.isEmpty, !resolved.isEmpty { return .failure(.refused) }
        for address in admitted {
            switch connect(to: address) {
            case .success(let fd):
                defer { close(fd) }
                return exchange(over: fd)
            case .failure(.failed(let reason)):
                lastError = reason
            case .failure(let failure):
                return .failure(failure)
            }
        }
        return .failure(.failed("cannot connect to \(url.authority): \(lastError)"))
    }

    // MARK: steps

    /// One address a callback's host resolves to.
    struct Address {
        var storage = sockaddr_storage()
        var length: socklen_t = 0
        var family: Int32 = 0

        /// The address as `getnameinfo` writes it (`127.0.0.1`, `::1`, `fe80::1%eth0`), or "" when it cannot.
        var text: String {
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            var storage = storage
            let status = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    getnameinfo($0, length, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST)
                }
            }
            guard status == 0, let end = buffer.firstIndex(of: 0) else { return "" }
            return String(decoding: buffer[..<end].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// The addresses to try for `url`: the literal one, or what its name resolves to (blocking).
    static func addresses(of url: CallbackURL) -> [Address] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        // A literal address is read, not looked up.
        hints.ai_flags = AI_NUMERICSERV | (url.hostKind == .name ? 0 : AI_NUMERICHOST)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(url.host, String(url.port), &hints, &list) == 0 else { return [] }
        defer { freeaddrinfo(list) }
        var found: [Address] = []
        var next = list
        while let entry = next?.pointee {
            next = entry.ai_next
            guard let source = entry.ai_addr, Int(entry.ai_addrlen) <= MemoryLayout<sockaddr_storage>.size else {
                continue
            }
            var address = Address()
            withUnsafeMutableBytes(of: &address.storage) { $0.copyMemory(from: UnsafeRawBufferPointer(
                start: source, count: Int(entry.ai_addrlen))) }
            (address.length, address.family) = (entry.ai_addrlen, entry.ai_family)
            found.append(address)
        }
        return found
    }

    /// A connected non-blocking socket, registered for `cancel`.
    private func connect(to address: Address) -> Result<Int32, Failure> {
        let fd = Glibc.socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
                              | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(.failed(Self.describe(errno))) }
        let registered = socket.withLock { socket in
            guard !socket.cancelled else { return false }
            socket.fd = fd
            return true
        }
        guard registered else {
            close(fd)
            return .failure(.cancelled)
        }
        var storage = address.storage
        let started = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, address.length) }
        }
        if started != 0, errno != EINPROGRESS { return unregister(fd, .failure(.failed(Self.describe(errno)))) }
        if started != 0 {
            if let failure = wait(fd, for: Int16(POLLOUT)) { return unregister(fd, .failure(failure)) }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            if error != 0 { return unregister(fd, .failure(.failed(Self.describe(error)))) }
        }
        return .success(fd)
    }

    /// Closes a socket that will not be used, after taking it out of `cancel`'s reach.
    private func unregister(_ fd: Int32, _ result: Result<Int32, Failure>) -> Result<Int32, Failure> {
        socket.withLock { $0.fd = -1 }
        close(fd)
        return result
    }

    /// Sends the request, then reads until the final status line.
    private func exchange(over fd: Int32) -> Result<Int, Failure> {
        defer { socket.withLock { $0.fd = -1 } }
        var sent = 0
        while sent < request.count {
            do throws(SystemCallError) {
                let count = try retryingInterrupts("send") {
                    request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                }
                guard count > 0 else { break }
                sent += count
            } catch where error.wouldBlock {
                if let failure = wait(fd, for: Int16(POLLOUT)) { return .failure(failure) }
            } catch {
                break  // the receiver closed, perhaps after answering early: read what it said
            }
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: Self.headLimit)
        while true {
            switch StatusLine.parse(answer) {
            case .status(let status): return .success(status)
            case .invalid: return .failure(.failed("the receiver's answer is not HTTP/1.x"))
            case .incomplete: break
            }
            guard answer.count < Self.headLimit else {
                return .failure(.failed("the receiver's answer head is longer than \(Self.headLimit) bytes"))
            }
            let count: Int
            do throws(SystemCallError) {
                count = try retryingInterrupts("recv") {
                    buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, Self.headLimit - answer.count, 0) }
                }
            } catch where error.wouldBlock {
                if let failure = wait(fd, for: Int16(POLLIN)) { return .failure(failure) }
                continue
            } catch {
                count = 0
            }
            guard count > 0 else {
                let cancelled = socket.withLock { $0.cancelled }
                return .failure(cancelled ? .cancelled
                                          : .failed("the receiver closed the connection without an answer"))
            }
            answer += buffer[..<count]
        }
    }

    /// Waits until `fd` is ready for `events`; the failure when the deadline passes or `cancel` shut it down first.
    private func wait(_ fd: Int32, for events: Int16) -> Failure? {
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return .timedOut }
            let (seconds, attoseconds) = left.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let ready = (try? retryingInterrupts("poll") { poll(&entry, 1, milliseconds) }) ?? -1
            if socket.withLock({ $0.cancelled }) { return .cancelled }
            if ready > 0 { return nil }  // ready, or an error the next call reports
        }
    }

    private static func describe(_ number: Int32) -> String {
        String(cString: strerror(number))
    }
}

/// Reads the final status out of the start of an HTTP/1.x answer, skipping interim (1xx) answers.
enum StatusLine: Equatable {
    /// The first status that is not 1xx.
    case status(Int)
    /// More bytes are needed.
    case incomplete
    /// Not an HTTP/1.x answer.
    case invalid

    /// - Parameter bytes: the answer so far.
    static func parse(_ bytes: [UInt8]) -> StatusLine {
        let version = Array("HTTP/1.".utf8)
        let lineEnd: [UInt8] = [13, 10]
        var start = 0
        while true {
            let available = bytes[start...].prefix(version.count)
            guard available.elementsEqual(version.prefix(available.count)) else { return .invalid }
            guard let end = firstIndex(of: lineEnd, in: bytes, from: start) else { return .incomplete }
            let line = bytes[start..<end]
            // "HTTP/1.1 200" then, optionally, " reason".
            guard line.count >= 12, line[start + 8] == UInt8(ascii: " "),
                  line[(start + 9)..<(start + 12)].allSatisfy({ (0x30...0x39).contains($0) }),
                  line.count == 12 || line[start + 12] == UInt8(ascii: " ")
            else { return .invalid }
            let status = line[(start + 9)..<(start + 12)].reduce(0) { $0 * 10 + Int($1 - 0x30) }
            guard (100..<200).contains(status) else { return .status(status) }
            guard let headEnd = firstIndex(of: lineEnd + lineEnd, in: bytes, from: start) else { return .incomplete }
            start = headEnd + 4
        }
    }

    private static func firstIndex(of pattern: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= start + pattern.count else { return nil }
        return (start...(bytes.count - pattern.count)).first { bytes[$0..<($0 + pattern.count)].elementsEqual(pattern) }
    }
}
