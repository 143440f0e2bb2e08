import AlertAPI
import Foundation
import Testing

/// `GET /v1/alerts/{id}/response` and `GET /v1/alerts/{id}`, polled and long-polled: how a
/// producer's completion receives the Result.
@Suite("Polling and long-polling")
struct LongPollTests {
    @Test("Poll: 204 with no body while pending, 200 with the Result after")
    func pollPendingThenResolved() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(loginAlert)
            let pending = try await server.response(id)
            #expect(pending.status == 204)
            #expect(pending.body.isEmpty)
            let answer = try await server.answer(id, #"{"buttonIndex":1,"values":["alice","secret"]}"#)
            let resolved = try await server.response(id)
            #expect(resolved.status == 200)
            #expect(resolved.contentType.hasPrefix("application/json"))
            #expect(resolved.json == answer.json)
            #expect(resolved.json["values"] == .array([.string("alice"), .string("secret")]))
        }
    }

    @Test("wait=0 answers at once")
    func waitZero() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(#"{"message":"hi"}"#)
            let watch = Stopwatch()
            #expect(try await server.response(id, wait: 0).status == 204)
            #expect(watch.seconds < TestTime.bound(10))
        }
    }

    @Test("wait=2 on an alert nobody answers: 204 after about 2 s")
    func waitTimesOut() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(#"{"message":"nobody home"}"#)
            let watch = Stopwatch()
            let response = try await server.response(id, wait: 2)
            let elapsed = watch.seconds
            #expect(response.status == 204)
            #expect(response.body.isEmpty)
            #expect(elapsed >= 1.8, "answered after \(elapsed) s")
            #expect(elapsed < 2 + TestTime.bound(10), "answered after \(elapsed) s")
        }
    }

    @Test("GET alert with wait=1 on an alert nobody answers: the pending Alert after about 1 s")
    func alertWaitTimesOut() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(#"{"message":"nobody home"}"#)
            let watch = Stopwatch()
            let response = try await server.alert(id, wait: 1)
            #expect(response.status == 200)
            #expect(response.json["state"] == .string("pending"))
            #expect(watch.seconds >= 0.8)
        }
    }

    @Test("A long-poll started first is woken by the answer at once, not at the end of its wait")
    func longPollWokenByAnswer() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(loginAlert)
            let wait = 60
            let poll = Task { () throws -> (WireResponse, ContinuousClock.Instant) in
                let response = try await server.response(id, wait: wait)
                return (response, ContinuousClock.now)
            }
            await server.waitForWaiters(1)
            let answeredAt = ContinuousClock.now
            let answer = try await server.answer(id, #"{"buttonIndex":1,"values":["alice","secret"]}"#)
            #expect(answer.status == 200)
            let (response, wokenAt) = try await poll.value
            #expect(response.status == 200)
            #expect(response.json == answer.json)
            let delay = (wokenAt - answeredAt).seconds
            #expect(delay < TestTime.sooner(than: Double(wait)),
                    "the long-poll woke \(delay) s after the answer was sent")
        }
    }

    @Test("20 concurrent long-polls on one alert all receive the identical Result")
    func manyWaitersSameResult() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(loginAlert)
            let wait = 60
            let polls = Task {
                try await withThrowingTaskGroup(of: WireResponse.self) { group in
                    for _ in 0..<20 {
                        group.addTask { try await server.response(id, wait: wait) }
                    }
                    return try await group.reduce(into: [WireResponse]()) { $0.append($1) }
                }
            }
            await server.waitForWaiters(20)
            let watch = Stopwatch()
            let answer = try await server.answer(id, #"{"button":"Log in","values":["bob","pw"]}"#)
            #expect(answer.status == 200)
            let responses = try await polls.value
            #expect(watch.seconds < TestTime.sooner(than: Double(wait)))
            #expect(responses.count == 20)
            #expect(responses.allSatisfy { $0.status == 200 }, "\(responses.map(\.status))")
            #expect(responses.allSatisfy { $0.body == answer.body })
        }
    }

    @Test("Waiting requests hold no thread: 200 long-polls, and the server still answers at once")
    func waitsHoldNoThread() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(#"{"message":"crowd"}"#)
            let wait = 60
            let polls = Task {
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<200 { group.addTask { try await server.response(id, wait: wait).status } }
                    return try await group.reduce(into: [Int]()) { $0.append($1) }
                }
            }
            await server.waitForWaiters(200)
            let watch = Stopwatch()
            #expect(try await server.get("/healthz").status == 200)
            let other = try await server.create(#"{"message":"other"}"#)
            #expect(try await server.answer(other, #"{"buttonIndex":0}"#).status == 200)
            // Had each wait held one of the server's threads, these would queue behind the waits.
            #expect(watch.seconds < TestTime.sooner(than: Double(wait)),
                    "the server was slow while requests waited: \(watch.seconds) s")
            #expect(try await server.answer(id, #"{"buttonIndex":0}"#).status == 200)
            let statuses = try await polls.value
            #expect(statuses.count == 200)
            #expect(statuses.allSatisfy { $0 == 200 }, "\(Set(statuses))")
        }
    }

    @Test("A short wait is not held up by a longer wait on the same alert")
    func shortWaitBesideLongWait() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(#"{"message":"hi"}"#)
            let long = 60
            let longPoll = Task { try await server.response(id, wait: long) }
            await server.waitForWaiters(1)
            let watch = Stopwatch()
            let short = try await server.response(id, wait: 1)
            #expect(short.status == 204)
            #expect(watch.seconds >= 0.8 && watch.seconds < TestTime.sooner(than: Double(long)), "\(watch.seconds) s")
            let answer = try await server.answer(id, #"{"buttonIndex":0}"#)
            #expect(try await longPoll.value.json == answer.json)
        }
    }

    @Test("Answering another alert does not wake a long-poll")
    func otherAlertDoesNotWake() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let waited = try await server.create(#"{"message":"waited on"}"#)
            let other = try await server.create(#"{"message":"other"}"#)
            let poll = Task { try await server.response(waited, wait: 60) }
            await server.waitForWaiters(1)
            _ = try await server.answer(other, #"{"buttonIndex":0}"#)
            _ = try await server.delete("/v1/alerts/\(try await server.create(#"{"message":"third"}"#))")
            // A waiter is woken as the change commits, before the request that made it is answered.
            #expect(await server.app.store.statistics.waiters == 1, "the long-poll still waits")
            let answer = try await server.answer(waited, #"{"buttonIndex":0}"#)
            #expect(try await poll.value.json == answer.json, "woken by its own alert's answer")
        }
    }

    @Test("HEAD on a pending response is 204, on a resolved one 200 without a body")
    func headResponse() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(#"{"message":"hi"}"#)
            #expect(try await server.send("HEAD", "/v1/alerts/\(id)/response").status == 204)
            _ = try await server.answer(id, #"{"buttonIndex":0}"#)
            let head = try await server.send("HEAD", "/v1/alerts/\(id)/response")
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
        }
    }

    @Test("GET /v1/alerts/{id}?wait= returns the resolved Alert when it resolves")
    func alertLongPoll() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(loginAlert)
            let wait = 60
            let poll = Task { try await server.alert(id, wait: wait) }
            await server.waitForWaiters(1)
            let watch = Stopwatch()
            let answer = try await server.answer(id, #"{"buttonIndex":0,"values":["",""]}"#)
            let response = try await poll.value
            #expect(watch.seconds < TestTime.sooner(than: Double(wait)))
            #expect(response.status == 200)
            #expect(response.json["id"] == .string(id))
            #expect(response.json["state"] == .string("resolved"))
            #expect(response.json["result"] == answer.json)
        }
    }

    @Test("A long-poll is woken by a DELETE with the dismissal")
    func longPollWokenByDelete() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(#"{"title":"t","buttons":["Cancel","OK"]}"#)
            let poll = Task { try await server.response(id, wait: 60) }
            await server.waitForWaiters(1)
            let dismissed = try await server.delete("/v1/alerts/\(id)")
            let response = try await poll.value
            #expect(response.status == 200)
            #expect(response.json == dismissed.json)
            #expect(response.json["resolution"] == .string("dismissed"))
        }
    }

    @Test("A resolved alert answers a long-poll at once")
    func resolvedAnswersAtOnce() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(#"{"message":"hi"}"#)
            let answer = try await server.answer(id, #"{"buttonIndex":0}"#)
            let watch = Stopwatch()
            let response = try await server.response(id, wait: 30)
            #expect(watch.seconds < TestTime.sooner(than: 30))
            #expect(response.status == 200)
            #expect(response.json == answer.json)
            let alert = try await server.alert(id, wait: 30)
            #expect(watch.seconds < TestTime.sooner(than: 30))
            #expect(alert.json["result"] == answer.json)
        }
    }

    @Test("Bad wait values are 400 problems naming 'wait'",
          arguments: ["-1", "301", "abc", "1.5", "", "1e2", "%2B5"],
          ["/v1/alerts/ID/response", "/v1/alerts/ID", "/v1/alerts"])
    func badWait(value: String, target: String) async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(#"{"message":"hi"}"#)
            let response = try await server.get(target.replacingOccurrences(of: "ID", with: id) + "?wait=\(value)")
            expectProblem(response, 400, parameter: "wait", type: "urn:alertd:problem:invalid-parameter")
        }
    }

    @Test("wait=300 is allowed (answered at once when the alert has resolved)")
    func waitUpperBound() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(#"{"message":"hi"}"#)
            _ = try await server.delete("/v1/alerts/\(id)")
            #expect(try await server.response(id, wait: 300).status == 200)
        }
    }
}
