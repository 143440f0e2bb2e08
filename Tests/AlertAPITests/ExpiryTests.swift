@testable import AlertAPI
import Foundation
import Testing

/// `timeout`: an alert nobody answers resolves by itself at `expiresAt`.
@Suite("Expiry")
struct ExpiryTests {
    /// Waits until the store's one timer has run past a deadline `timeout` seconds from now: creates an alert with
    /// that timeout and long-polls it until it expires (deadlines fire in order).
    static func waitForTimer(past timeout: Double, on server: LiveServer) async throws {
        let sentinel = try await server.create(#"{"message":"sentinel","timeout":\#(timeout)}"#)
        let expired = try await server.response(sentinel, wait: 60)
        #expect(expired.json["resolution"] == .string("expired"), "\(expired)")
    }

    @Test("timeout 0.5: pending at first, then expired as the cancel button")
    func expiresAsCancel() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create("""
                {"title":"t","buttons":["OK",{"title":"Never mind","style":"cancel"}],
                 "fields":[{"text":"typed"}],"timeout":0.5}
                """)
            #expect(try await server.response(id).status == 204)
            let response = try await server.response(id, wait: 60)
            #expect(response.status == 200, "\(response.text)")
            let result = response.json
            #expect(result["resolution"] == .string("expired"))
            #expect(result["buttonIndex"] == .integer(0))
            #expect(result["buttonTitle"] == .string("Never mind"))
            #expect(result["ok"] == .bool(false))
            #expect(result["values"] == .array([.string("typed")]))

            let alert = try await server.alert(id).json
            #expect(alert["state"] == .string("resolved"))
            #expect(alert["result"] == result)
            // Expiry won: later answers and dismissals are 409 with it.
            #expect(expectProblem(try await server.answer(id, #"{"buttonIndex":1,"values":["x"]}"#), 409)["result"]
                    == result)
            #expect(expectProblem(try await server.delete("/v1/alerts/\(id)"), 409)["result"] == result)
        }
    }

    @Test("timeout 0.5 on a single-button alert: expired as its only button")
    func expiresAsOnlyButton() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(#"{"message":"hi","buttons":["Got it"],"timeout":0.5}"#)
            let response = try await server.response(id, wait: 5)
            #expect(response.status == 200)
            #expect(response.json["resolution"] == .string("expired"))
            #expect(response.json["buttonIndex"] == .integer(0))
            #expect(response.json["buttonTitle"] == .string("Got it"))
        }
    }

    @Test("A long-poll waiting on an alert wakes when it expires, at about expiresAt")
    func longPollWokenByExpiry() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let watch = Stopwatch()
            let wait = 60
            let id = try await server.create(#"{"title":"t","buttons":["Cancel","OK"],"timeout":0.5}"#)
            async let alertPoll = server.alert(id, wait: wait)
            let response = try await server.response(id, wait: wait)
            let elapsed = watch.seconds
            #expect(response.status == 200)
            #expect(response.json["resolution"] == .string("expired"))
            #expect(response.json["buttonTitle"] == .string("Cancel"))
            #expect(response.json["ok"] == .bool(false))
            #expect(elapsed >= 0.4, "woke after \(elapsed) s")
            #expect(elapsed < TestTime.sooner(than: Double(wait)), "woke after \(elapsed) s")
            let alert = try await alertPoll
            #expect(alert.json["state"] == .string("resolved"))
            #expect(alert.json["result"] == response.json)
            // It resolved at expiresAt.
            let expiresAt = try #require(alert.json["expiresAt"]?.stringValue.flatMap(RFC3339.parse))
            let resolvedAt = try #require(response.json["resolvedAt"]?.stringValue.flatMap(RFC3339.parse))
            let late = resolvedAt.timeIntervalSince(expiresAt)
            // Its own timer, not the end of the poll's wait.
            #expect(late >= -0.002 && late < TestTime.sooner(than: Double(wait)), "resolved \(late) s after expiresAt")
        }
    }

    @Test("An expired alert leaves the pending list and joins the resolved one")
    func expiryMovesLists() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(#"{"message":"hi","timeout":0.5}"#)
            let before = try await server.list()
            #expect(before.ids == [id])
            _ = try await server.response(id, wait: 5)
            let after = try await server.list()
            #expect(after.ids == [])
            #expect(try await server.listIDs("state=resolved") == [id])
            let beforeIndex = try #require(before["index"]?.int64Value)
            #expect((after["index"]?.int64Value ?? 0) > beforeIndex, "expiry bumps the index")
        }
    }

    @Test("A short timeout created after a long one still expires on time")
    func deadlinesInOrder() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let long = try await server.create(#"{"message":"long","timeout":3600}"#)
            let later = try await server.create(#"{"message":"later","timeout":60}"#)
            let watch = Stopwatch()
            let short = try await server.create(#"{"message":"short","timeout":0.5}"#)
            let response = try await server.response(short, wait: 90)
            #expect(response.json["resolution"] == .string("expired"))
            #expect(watch.seconds < TestTime.sooner(than: 60), "expired at its own deadline, not at the later one's")
            #expect(try await server.response(later).status == 204)
            #expect(try await server.response(long).status == 204)
            #expect(try await server.listIDs() == [long, later])
        }
    }

    @Test("A dismissed alert with a timeout does not expire again")
    func dismissedDoesNotExpire() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(#"{"title":"t","buttons":["Cancel","OK"],"timeout":0.3}"#)
            let dismissed = try await server.delete("/v1/alerts/\(id)")
            #expect(dismissed.status == 200)
            try await Self.waitForTimer(past: 0.3, on: server)
            #expect(try await server.response(id).json == dismissed.json)
        }
    }

    @Test("An alert answered before its timeout stays answered")
    func answeredBeforeTimeout() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(#"{"title":"t","buttons":["Cancel","OK"],"timeout":0.5}"#)
            let answer = try await server.answer(id, #"{"buttonIndex":1}"#)
            #expect(answer.status == 200)
            try await Self.waitForTimer(past: 0.5, on: server)
            let response = try await server.response(id)
            #expect(response.json == answer.json)
            #expect(response.json["resolution"] == .string("answered"))
        }
    }
}
