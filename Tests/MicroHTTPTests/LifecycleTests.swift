import Foundation
import HTTPTestSupport
import MicroHTTP
import Synchronization
import Testing

/// `HTTPRequest.onFinish` and `addResponseHeader`: the end of every request reported once, with its status, body
/// bytes and duration, however it was answered.
@Suite("Request lifecycle")
struct LifecycleTests {
    @Test("each request ends once with its status and body bytes: at once, deferred, suspended, streamed")
    func reportsEveryEnd() async throws {
        let probe = LifecycleProbe()
        try await withEchoServer(handler: probe) { server in
            let now = try await RawHTTP.exchange(RawHTTP.request("GET", "/now"), port: server.port, timeout: 10)
            let later = try await RawHTTP.exchange(RawHTTP.request("GET", "/later"), port: server.port, timeout: 10)
            let held = try await RawHTTP.exchange(RawHTTP.request("GET", "/held"), port: server.port, timeout: 10)
            let stream = try await RawHTTP.exchange(RawHTTP.request("GET", "/stream"), port: server.port, timeout: 10)
            for response in [now, later, held, stream] {
                #expect(response.headers["x-tag"] == "tagged", "on every response, whoever produced it")
            }
            _ = await TestTime.until { probe.ends.count >= 4 }
            let ends = probe.ends
            #expect(ends["/now"]?.status == 200 && ends["/now"]?.bodyBytes == 3)
            #expect(ends["/later"]?.status == 202 && ends["/later"]?.bodyBytes == 5)
            #expect(ends["/held"]?.status == 201 && ends["/held"]?.bodyBytes == 4)
            #expect(ends["/stream"]?.status == 200 && ends["/stream"]?.bodyBytes == 12, "the stream's bytes sent")
            #expect(ends.values.allSatisfy { $0.completed && $0.duration >= .zero })
            #expect((ends["/later"]?.duration ?? .zero) >= .milliseconds(20), "from the head to the end")
            #expect(probe.count == 4, "once each")
        }
    }

    @Test("a request answered at shutdown is reported, with the transport's status and the handler's headers")
    func shutdownReported() async throws {
        let probe = LifecycleProbe()
        let server = try startTestServer(handler: probe)
        async let never = RawHTTP.exchange(RawHTTP.request("GET", "/never"), port: server.port, timeout: 10)
        _ = await TestTime.until { server.suspendedRequests > 0 }
        await server.shutdown(grace: .milliseconds(200))
        let response = try await never
        #expect(response.status == 503)
        #expect(response.headers["x-tag"] == "tagged")
        #expect(probe.ends["/never"]?.status == 503, "reported before shutdown returns")
    }
}

/// Records how each request ended, by path. `/now`: 200 at once. `/later`: 202 from deferred work after 20 ms.
/// `/held`: 201 from a responder on another thread. `/stream`: a 12-byte stream. `/never`: deferred work that only
/// shutdown ends. Every request gets `X-Tag: tagged`.
final class LifecycleProbe: HTTPHandler {
    private let state = Mutex<(ends: [String: HTTPCompletion], count: Int)>(([:], 0))

    var ends: [String: HTTPCompletion] { state.withLock { $0.ends } }
    var count: Int { state.withLock { $0.count } }

    func handle(_ request: HTTPRequest) -> HTTPReply {
        let path = request.path
        request.addResponseHeader("X-Tag", "tagged")
        request.onFinish { end in
            self.state.withLock {
                $0.ends[path] = end
                $0.count += 1
            }
        }
        switch path {
        case "/later":
            return .deferred {
                try? await Task.sleep(for: .milliseconds(20))
                return .response(.text(202, "later"))
            }
        case "/held":
            return .suspended { responder in
                DispatchQueue.global().async { responder.respond(.response(.text(201, "held"))) }
            }
        case "/stream":
            return .stream(HTTPResponse(status: 200)) { stream in
                stream.write(Array("abcdef".utf8))
                stream.finish(with: Array("ghijkl".utf8))
            }
        case "/never":
            return .deferred {
                try? await Task.sleep(for: .seconds(3600))
                return .response(.text(200, "woke"))
            }
        default:
            return .response(.text(200, "now"))
        }
    }
}
