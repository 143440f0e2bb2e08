@testable import AlertAPI
import Foundation
import HTTPTestSupport
import Testing
import JSON

/// Long-polls held as callback waiters on suspended connections (no task): what each woken waiter receives.
@Suite("Woken long-polls")
struct WokenWaitersTests {
    @Test("waiters woken together each get their own view: secrets for the producer and admin, not the responder")
    func redactionPerCaller() async throws {
        try await AccessControlTests.withTokens { server in
            let id = try await server.create(AccessControlTests.login, as: AccessControlTests.ci)
            var polls: [(token: String, target: String, task: Task<WireResponse, any Error>)] = []
            for token in [AccessControlTests.ci, AccessControlTests.alice, AccessControlTests.root] {
                for target in ["/v1/alerts/\(id)?wait=60", "/v1/alerts/\(id)/response?wait=60"] {
                    for _ in 0..<2 {
                        polls.append((token, target, Task { try await server.send("GET", target, as: token) }))
                    }
                }
            }
            await server.waitForWaiters(polls.count)
            let answer = try await server.send("POST", "/v1/alerts/\(id)/response",
                                               body: #"{"button":"OK","values":["alice","hunter2"]}"#,
                                               as: AccessControlTests.alice)
            #expect(answer.status == 200)
            for poll in polls {
                let response = try await poll.task.value
                #expect(response.status == 200)
                let values = poll.target.hasSuffix("/response?wait=60") ? response.json["values"]
                    : response.json["result"]?["values"]
                let secret: JSONValue = poll.token == AccessControlTests.alice ? .null : .string("hunter2")
                #expect(values == .array([.string("alice"), secret]), "\(poll.target) as \(poll.token)")
                #expect(response.headers["x-request-id"]?.isEmpty == false, "instrumented when answered")
            }
        }
    }

    @Test("a long-poll on an unknown id is 404 at once; its status and route are counted when answered")
    func unknownAndCounted() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let watch = Stopwatch()
            let unknown = try await server.get("/v1/alerts/no-such-alert?wait=30")
            _ = expectProblem(unknown, 404, type: "urn:alertd:problem:not-found")
            #expect(watch.seconds < TestTime.sooner(than: 30))
            let id = try await server.create(#"{"message":"count me"}"#)
            let poll = try await server.send("GET", "/v1/alerts/\(id)/response?wait=1",
                                             headers: [("X-Request-Id", "woken-poll-1")])
            #expect(poll.status == 204)
            #expect(poll.headers["x-request-id"] == "woken-poll-1")
            let metrics = try await server.get("/metrics").text
            #expect(metrics.contains(#"alertd_http_requests_total{route="/v1/alerts/{id}/response",method="GET",status="204"} 1"#),
                    "\(metrics)")
        }
    }

    @Test("a list long-poll waits for the next change, and answers at once when the index has passed")
    func listWaits() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let first = try await server.get("/v1/alerts")
            let index = try #require(first.headers["x-alertd-index"])
            let poll = Task { try await server.get("/v1/alerts?index=\(index)&wait=60") }
            await server.waitForWaiters(1)
            let id = try await server.create(#"{"message":"wake the list"}"#)
            let woken = try await poll.value
            #expect(woken.status == 200)
            #expect(woken.json["alerts"]?[0]?["id"] == .string(id))
            let watch = Stopwatch()
            let passed = try await server.get("/v1/alerts?index=\(index)&wait=60")
            #expect(passed.status == 200 && watch.seconds < TestTime.sooner(than: 60))
        }
    }
}
