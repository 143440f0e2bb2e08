import Foundation
import HTTPTestSupport
import MicroHTTP
import Synchronization
import Testing

/// `HTTPReply.suspended`: a request answered later through an `HTTPResponder`, with no task.
@Suite("Suspended replies and their responders")
struct ResponderTests {
    @Test("a responder answers later from another thread, once; keep-alive survives", arguments: [0, 20])
    func answeredLater(delay: Int) async throws {
        let probe = ResponderProbe()
        try await withEchoServer(handler: probe) { server in
            let requests = (0..<5).map { _ in RawHTTP.persistentRequest("GET", "/later?delay=\(delay)") }
            let responses = try await RawHTTP.keepAlive(requests, port: server.port, timeout: 30)
            #expect(responses.map(\.text) == Array(repeating: "first", count: 5), "the second respond is ignored")
            #expect(responses.allSatisfy { $0.headers["x-tagged"] == "yes" }, "headers added in handle go on it")
            #expect(server.suspendedRequests == 0)
        }
    }

    @Test("a responder called inside the closure answers at once")
    func answeredInside() async throws {
        try await withEchoServer(handler: ResponderProbe()) { server in
            let requests = (0..<3).map { _ in RawHTTP.persistentRequest("GET", "/inside") }
            let responses = try await RawHTTP.keepAlive(requests, port: server.port, timeout: 30)
            #expect(responses.map(\.text) == ["inside", "inside", "inside"])
        }
    }

    @Test("a responder may answer with deferred work")
    func answeredWithDeferred() async throws {
        try await withEchoServer(handler: ResponderProbe()) { server in
            let response = try await RawHTTP.exchange(RawHTTP.request("GET", "/nested"), port: server.port, timeout: 30)
            #expect(response.text == "nested")
            #expect(server.suspendedRequests == 0)
        }
    }

    @Test("a client that hangs up has its cancel handlers run once, and a late handler runs at once")
    func cancelOnHangUp() async throws {
        let probe = ResponderProbe()
        try await withEchoServer(handler: probe) { server in
            let wire = try await Wire.run(port: server.port) { wire in
                try wire.send("GET /held HTTP/1.1\r\nHost: x\r\n\r\n")
                return wire
            }
            #expect(await TestTime.until { server.suspendedRequests == 1 })
            let responder = try #require(probe.held)
            #expect(!responder.isCancelled)
            wire.hangUp()
            #expect(await TestTime.until { probe.cancelled == 1 }, "noticed by the watchdog (about half a second)")
            #expect(responder.isCancelled)
            // Something that must not happen: give the watchdog (every 500 ms) a pass or two to do it.
            try await Task.sleep(for: .milliseconds(700))
            #expect(probe.cancelled == 1, "once, though the watchdog passes again")
            let late = Counter()
            responder.onCancel { late.add() }
            #expect(late.value == 1, "a handler added after the cancel runs at once")
            #expect(server.suspendedRequests == 1, "still suspended: the application answers")
            responder.respond(.response(.text(200, "gone")))
            probe.releaseHeld()
            #expect(await TestTime.until { server.suspendedRequests == 0 })
        }
    }

    @Test("shutdown answers a suspended reply with the handler's 503 and runs its cancel handlers")
    func shutdownAnswers() async throws {
        let probe = ResponderProbe()
        let server = try startTestServer(handler: probe)
        async let held = RawHTTP.exchange(RawHTTP.request("GET", "/held"), port: server.port, timeout: 30)
        #expect(await TestTime.until { server.suspendedRequests == 1 })
        await server.shutdown(grace: .milliseconds(200))
        let response = try await held
        #expect(response.status == 503)
        #expect(probe.cancelled == 1)
        #expect(server.suspendedRequests == 0)
        // Too late: the transport answered; this does nothing.
        probe.held?.respond(.response(.text(200, "late")))
        probe.releaseHeld()
    }

    @Test("an answered request drops its cancel handlers unrun, releasing what they hold")
    func answeredDropsHandlers() async throws {
        let probe = ResponderProbe()
        try await withEchoServer(handler: probe) { server in
            let response = try await RawHTTP.exchange(RawHTTP.request("GET", "/later?delay=5"), port: server.port)
            #expect(response.text == "first")
            #expect(probe.cancelled == 0)
            #expect(await TestTime.until { probe.tokensAlive == 0 },
                    "the cancel handler's captures are gone once the request is answered")
        }
    }
}

/// `/later?delay=ms`: answered from a Dispatch thread after `delay` (twice; the first wins), with a header
/// added in `handle`. `/inside`: answered inside the closure. `/nested`: answered
/// with deferred work. `/held`: kept (in `held`) until someone answers; cancel handlers count.
///
/// `@unchecked Sendable` invariant: `state` is only touched with `lock` held.
final class ResponderProbe: HTTPHandler, @unchecked Sendable {
    private let lock = NSLock()
    private var state = (cancelled: 0, held: HTTPResponder?.none)
    let tokens = Counter()

    var cancelled: Int { lock.withLock { state.cancelled } }
    var held: HTTPResponder? { lock.withLock { state.held } }

    /// Lets go of the held responder: it holds the server's core, which holds this handler.
    func releaseHeld() { lock.withLock { state.held = nil } }
    var tokensAlive: Int { tokens.value }

    func handle(_ request: HTTPRequest) -> HTTPReply {
        switch request.path {
        case "/later":
            let delay = request.queryValue("delay").flatMap(Int.init) ?? 0
            request.addResponseHeader("X-Tagged", "yes")
            return .suspended { responder in
                let token = Token(self.tokens)
                responder.onCancel { withExtendedLifetime(token) {} }
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(delay)) {
                    responder.respond(.response(.text(200, "first")))
                    responder.respond(.response(.text(200, "second")))
                }
            }
        case "/inside":
            return .suspended { $0.respond(.response(.text(200, "inside"))) }
        case "/nested":
            return .suspended { responder in
                DispatchQueue.global().async { responder.respond(.deferred { .response(.text(200, "nested")) }) }
            }
        default:
            return .suspended { responder in
                self.lock.withLock { self.state.held = responder }
                responder.onCancel { self.lock.withLock { self.state.cancelled += 1 } }
            }
        }
    }
}

/// A thread-safe counter.
final class Counter: Sendable {
    private let count = Mutex(0)

    var value: Int { count.withLock { $0 } }

    func add(_ delta: Int = 1) {
        count.withLock { $0 += delta }
    }
}

/// Counts itself in a `Counter` while alive.
final class Token: Sendable {
    private let counter: Counter

    init(_ counter: Counter) {
        self.counter = counter
        counter.add()
    }

    deinit { counter.add(-1) }
}
