import Foundation
import HTTPTestSupport
import MicroHTTP
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What the transport does beyond libmicrohttpd: deadlines on slow heads and bodies, noticing a
/// client that hung up while its request waits, and never running a request it cannot answer.
@Suite("Connection guards")
struct ConnectionGuardTests {
    @Test("a head not complete --header-timeout after its request line gets 408 and a close")
    func headTimeout() async throws {
        try await withEchoServer(withLongTimeouts { $0.headerTimeout = 1 }) { server in
            let started = ContinuousClock.now
            let answer = try await Wire.run(port: server.port) { wire in
                try wire.send("GET / HTTP/1.1\r\nHost: x\r\nX-Never: ")
                return try wire.readToEnd()
            }
            let response = try RawHTTP.parse(answer)
            #expect(response.status == 408)
            #expect(response.headers["connection"] == "close")
            let elapsed = (ContinuousClock.now - started) / .seconds(1)
            #expect(elapsed < TestTime.sooner(than: idleTimeout), "1 s plus a watchdog pass, not the idle timeout")
        }
    }

    @Test("a body still trickling in --body-timeout after its head gets 408 and a close")
    func bodyTimeout() async throws {
        try await withEchoServer(withLongTimeouts { $0.bodyTimeout = 1 }) { server in
            let started = ContinuousClock.now
            let answer = try await Wire.run(port: server.port) { wire in
                try wire.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n")
                // A byte every 200 ms: each restarts libmicrohttpd's idle timeout, not the body deadline.
                for _ in 0..<100 where !wire.readable(within: 200) { try? wire.send("b") }
                return try wire.readToEnd()
            }
            let response = try RawHTTP.parse(answer)
            #expect(response.status == 408)
            let elapsed = (ContinuousClock.now - started) / .seconds(1)
            #expect(elapsed < TestTime.sooner(than: idleTimeout), "1 s plus a watchdog pass, not the idle timeout")
        }
    }

    @Test("a client that hangs up while its request is suspended has the deferred work cancelled")
    func hangUpCancelsWork() async throws {
        let probe = ProbeHandler()
        try await withEchoServer(handler: probe) { server in
            let wire = try await Wire.run(port: server.port) { wire in
                try wire.send("GET /hang HTTP/1.1\r\nHost: x\r\n\r\n")
                return wire
            }
            #expect(await TestTime.until { server.suspendedRequests == 1 })
            wire.hangUp()
            // The work sleeps an hour: noticed by the watchdog (about half a second), not at its end.
            #expect(await TestTime.until { probe.cancelled == 1 })
            #expect(await TestTime.until { server.suspendedRequests == 0 })
        }
    }

    @Test("a request sent on an idle keep-alive connection as shutdown closes it is never run")
    func requestRacingShutdownIsNotRun() async throws {
        let probe = ProbeHandler()
        let server = try startTestServer(handler: probe)
        let wire = try await Wire.run(port: server.port) { wire in
            try wire.send("GET /now HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = try wire.readResponse()
            return wire
        }
        #expect(probe.handled == 1)
        async let stopped: Void = server.shutdown(grace: .seconds(1))
        // The client sends its next request just after the server's end-of-stream arrived, as a
        // keep-alive client does that had not looked at the connection before reusing it.
        let outcome = try await Wire.onThread { () -> String in
            guard wire.readable(within: Int32(TestTime.bound(10_000))) else { return "no end of stream" }
            try? wire.send("POST /now HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
            do {
                let bytes = try wire.readToEnd()
                return bytes.isEmpty ? "closed" : "answered \(bytes.count) bytes"
            } catch {
                return "reset"  // the server had stopped already: no answer either
            }
        }
        await stopped
        #expect(outcome == "closed" || outcome == "reset", "no response")
        #expect(probe.handled == 1, "the second request did not run: a client may safely retry it")
    }

}

/// Counts the requests it handles: `/now` is answered at once; `/hang` waits until cancelled; `/header`
/// echoes `X-Key` in brackets. Counts the failures the transport answers, as `refused: <status>`.
///
/// `@unchecked Sendable` invariant: `counts` is only touched with `lock` held.
final class ProbeHandler: HTTPHandler, @unchecked Sendable {
    private let lock = NSLock()
    private var counts = (handled: 0, cancelled: 0, failures: 0)

    var handled: Int { lock.withLock { counts.handled } }
    var cancelled: Int { lock.withLock { counts.cancelled } }
    var failures: Int { lock.withLock { counts.failures } }

    func handle(_ request: HTTPRequest) -> HTTPReply {
        lock.withLock { counts.handled += 1 }
        if request.path == "/header" { return .response(.text(200, "[\(request.headers["x-key"] ?? "")]")) }
        guard request.path == "/hang" else { return .response(.text(200, "ran")) }
        return .deferred {
            try? await Task.sleep(for: .seconds(3600))
            if Task.isCancelled { self.lock.withLock { self.counts.cancelled += 1 } }
            return .response(.text(200, "woke"))
        }
    }

    func response(for failure: HTTPTransportFailure, to request: HTTPRequestHead) -> HTTPResponse {
        lock.withLock { counts.failures += 1 }
        let status = EchoHandler().response(for: failure, to: request).status
        return .text(status, "refused: \(status)\n")
    }
}

/// A blocking client socket for exact wire tests, used on a thread of its own (`Wire.run`).
///
/// `@unchecked Sendable` invariant: one thread at a time uses it; `Wire.run` hands it between
/// threads only through its result, which orders them.
final class Wire: @unchecked Sendable {
    private(set) var fd: Int32
    private var buffered: [UInt8] = []

    init(port: Int) throws {
        fd = try RawHTTP.connect(port: port, timeout: 2 * idleTimeout)  // past any answer the tests wait for
    }

    deinit { hangUp() }

    func hangUp() {
        if fd >= 0 { close(fd) }
        fd = -1
    }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else { throw RawHTTPError(description: "send: errno \(errno)") }
    }

    /// Whether something (bytes or the end of the stream) can be read within `milliseconds`.
    func readable(within milliseconds: Int32) -> Bool {
        var poll = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return Glibc.poll(&poll, 1, milliseconds) > 0
    }

    /// Everything until the server closes the connection.
    func readToEnd() throws -> [UInt8] {
        while try fill() {}
        defer { buffered = [] }
        return buffered
    }

    /// One response framed by `Content-Length`.
    func readResponse() throws -> WireResponse {
        let separator: [UInt8] = [13, 10, 13, 10]
        var end: Int?
        while end == nil {
            end = buffered.indices.first { buffered[$0...].starts(with: separator) }
            if end == nil, try !fill() { throw RawHTTPError(description: "closed before a response head") }
        }
        let response = try RawHTTP.parse(Array(buffered[..<(end! + 4)]))
        let total = end! + 4 + (Int(response.headers["content-length"] ?? "") ?? 0)
        while buffered.count < total {
            if try !fill() { throw RawHTTPError(description: "closed within a response body") }
        }
        defer { buffered.removeFirst(total) }
        return try RawHTTP.parse(Array(buffered[..<total]))
    }

    /// Reads what is there; false at the end of the stream.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 { buffered += chunk[..<count] }
        if count < 0 { throw RawHTTPError(description: "recv: errno \(errno)") }
        return count > 0
    }

    /// Connects to `port` on a thread of its own and runs `body` there.
    static func run<T: Sendable>(port: Int, _ body: @escaping @Sendable (Wire) throws -> T) async throws -> T {
        try await onThread { try body(try Wire(port: port)) }
    }

    /// Runs blocking work on a thread of its own, never on Swift's cooperative pool.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try body() }) }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }
}
