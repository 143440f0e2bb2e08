@testable import AlertAPI
import Foundation
import Testing

/// SIGTERM and SIGINT stop alertd gracefully: every waiting request is answered, then it exits 0.
@Suite("Graceful shutdown of the alertd process", .spawnsProcesses)
struct SignalShutdownTests {
    func send(_ method: String, _ target: String, _ body: String? = nil, port: Int) async throws -> WireResponse {
        try await RawHTTP.exchange(RawHTTP.request(method, target, body: body.map { Array($0.utf8) }), port: port)
    }

    @Test("SIGTERM answers every long-poll (503 + Retry-After, or its result) and exits 0",
          arguments: [SIGTERM, SIGINT])
    func sigtermAnswersWaiters(signal: Int32) async throws {
        let alertd = try await AlertdProcess.start()
        let port = alertd.port
        let pending = try #require(try await send("POST", "/v1/alerts", #"{"message":"still pending"}"#, port: port)
            .json["id"]?.stringValue)
        let answered = try #require(try await send("POST", "/v1/alerts", #"{"message":"answered"}"#, port: port)
            .json["id"]?.stringValue)

        // Waiters: three long-polls on the pending alert, one on the alert, one blocking list query.
        let waiters = [
            "/v1/alerts/\(pending)/response?wait=60",
            "/v1/alerts/\(pending)/response?wait=60",
            "/v1/alerts/\(pending)/response?wait=60",
            "/v1/alerts/\(pending)?wait=60",
            "/v1/alerts?index=1000000&wait=60",
        ]
        let started = Date()
        async let responses = withThrowingTaskGroup(of: WireResponse.self) { group in
            for target in waiters {
                group.addTask { try await RawHTTP.exchange(RawHTTP.request("GET", target), port: port) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        async let answeredWaiter = send("GET", "/v1/alerts/\(answered)/response?wait=60", port: port)
        let (held, gauge) = await alertd.awaitWaiters(waiters.count + 1)
        #expect(held, "alertd never held \(waiters.count + 1) waiters: \(gauge.map(String.init) ?? "no answer")")
        let answer = try await send("POST", "/v1/alerts/\(answered)/response", #"{"buttonIndex":0}"#, port: port)
        #expect(answer.status == 200)
        #expect(try await answeredWaiter.status == 200, "the answered alert's waiter gets its result")

        alertd.send(signal)
        let answers = try await responses
        #expect(Date().timeIntervalSince(started) < TestTime.sooner(than: 60),
                "waiters are answered at shutdown, not at their deadline")
        #expect(answers.count == waiters.count)
        for response in answers {
            #expect(response.status == 503, "\(response.text)")
            #expect(response.headers["retry-after"] == "1")
            #expect(response.isProblem)
        }
        #expect(try await alertd.exitStatus(timeout: 15) == 0)
        await #expect(throws: (any Error).self, "no longer accepting") {
            _ = try await RawHTTP.exchange(RawHTTP.request("GET", "/healthz"), port: port, timeout: 2)
        }
    }

    @Test("an idle alertd exits 0 promptly on SIGTERM")
    func idleExit() async throws {
        let grace = 60.0
        let alertd = try await AlertdProcess.start(arguments: ["--shutdown-grace", "\(Int(grace))"])
        #expect(try await send("GET", "/healthz", port: alertd.port).status == 200)
        let started = Date()
        alertd.send(SIGTERM)
        #expect(try await alertd.exitStatus(timeout: grace) == 0)
        #expect(Date().timeIntervalSince(started) < TestTime.sooner(than: grace), "nothing to wait for: not its grace")
    }

    @Test("bad flags exit 64 with a message on stderr")
    func badFlags() async throws {
        let child = try await AlertdProcess.run(["--port", "99999"], timeout: 10)
        #expect(child.status == 64)
        #expect(child.standardError.contains("--port"))
    }
}
