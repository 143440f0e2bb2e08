import Foundation
import HTTPTestSupport
import Locking

#if canImport(Glibc)
import Glibc
#endif

/// A TCP proxy on 127.0.0.1 that a test can take down and bring back on the same port: while down, connections are
/// refused and every open connection is cut, as if the server had gone away; the server behind it keeps its state.
/// Blocking sockets on their own threads, so it never blocks Swift's cooperative pool. `beforeSending` sees each
/// chunk a client sends, on the proxy's thread, before the server gets it: a test acts on the server between two
/// requests of one client call there.
final class FlakyProxy: Sendable {
    /// The proxy's port (fixed across `down()`/`up()`).
    let port: Int
    private let upstream: Int
    private let beforeSending: @Sendable ([UInt8]) -> Void
    /// Listening socket (-1 while down) and the open sockets, to cut on `down()`.
    private let state = Lock<(listener: Int32, open: Set<Int32>)>((-1, []))

    /// Starts forwarding 127.0.0.1:(new port) to 127.0.0.1:`upstream`.
    init(upstream: Int, beforeSending: @escaping @Sendable ([UInt8]) -> Void = { _ in }) throws {
        self.upstream = upstream
        self.beforeSending = beforeSending
        let listener = try Self.listen(port: 0)
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        state.withLock { $0.listener = listener }
        startAccepting(listener)
    }

    /// Stops listening and cuts every open connection.
    func down() {
        let (listener, open) = state.withLock { state in
            defer { state = (-1, []) }
            return state
        }
        if listener >= 0 {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }
        for fd in open {
            shutdown(fd, Int32(SHUT_RDWR))
        }
    }

    /// Listens again on the same port.
    func up() throws {
        let listener = try Self.listen(port: port)
        state.withLock { $0.listener = listener }
        startAccepting(listener)
    }

    deinit {
        down()
    }

    private func startAccepting(_ listener: Int32) {
        let thread = Thread { [self] in
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 { return }
                forward(client)
            }
        }
        thread.start()
    }

    private func forward(_ client: Int32) {
        let server = Self.connect(port: upstream)
        guard server >= 0 else {
            close(client)
            return
        }
        let accepted = state.withLock { state in
            guard state.listener >= 0 else { return false }
            state.open.formUnion([client, server])
            return true
        }
        guard accepted else {
            close(client)
            close(server)
            return
        }
        let remaining = Lock(2)
        let finish: @Sendable () -> Void = { [self] in
            shutdown(client, Int32(SHUT_RDWR))
            shutdown(server, Int32(SHUT_RDWR))
            if remaining.withLock({ count in count -= 1; return count }) == 0 {
                state.withLock { $0.open.subtract([client, server]) }
                close(client)
                close(server)
            }
        }
        Thread { [beforeSending] in Self.pump(from: client, to: server, beforeSending); finish() }.start()
        Thread { Self.pump(from: server, to: client); finish() }.start()
    }

    private static func pump(
        from source: Int32, to destination: Int32, _ beforeSending: @Sendable ([UInt8]) -> Void = { _ in }
    ) {
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count <= 0 { return }
            beforeSending(Array(buffer[..<count]))
            var sent = 0
            while sent < count {
                let written = buffer.withUnsafeBytes {
                    send(destination, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL))
                }
                if written <= 0 { return }
                sent += written
            }
        }
    }

    static func listen(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let bound = Loopback.withAddress(port: port) { bind(fd, $0, $1) }
        guard bound == 0, Glibc.listen(fd, 128) == 0 else {
            close(fd)
            throw TestFailure("proxy cannot listen on port \(port): errno \(errno)")
        }
        return fd
    }

    private static func connect(port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let connected = Loopback.connect(fd, port: port)
        if connected != 0 {
            close(fd)
            return -1
        }
        return fd
    }
}

/// A port that accepts connections (in the kernel's backlog) and never answers: requests to it time out.
final class SilentServer: Sendable {
    let port: Int
    private let listener: Int32

    init() throws {
        let fd = try FlakyProxy.listen(port: 0)
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(listener)
    }
}
