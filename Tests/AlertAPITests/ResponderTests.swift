@testable import AlertAPI
import Foundation
import HTTPTestSupport
import JSON
import Testing

/// The Result's `responder`: who answered (or dismissed) an alert, wherever the Result is shown.
@Suite("Responder")
struct ResponderTests {
    typealias Tokens = AccessControlTests

    @Test("with tokens, the answering token's name is in the Result everywhere it appears, and counted in metrics")
    func responderEverywhere() async throws {
        let receiver = try WebhookReceiver(statuses: [200])
        defer { receiver.stop() }
        try await Tokens.withTokens({ $0.webhooks = .loopback }) { server in
            let body = #"{"title":"Deploy?","buttons":["Cancel","Deploy"],"callback":"# + jsonString(receiver.url())
                + "}"
            let id = try await server.create(body, as: Tokens.ci)
            let waiter = Task { try await server.send("GET", "/v1/alerts/\(id)/response?wait=10", as: Tokens.ci) }
            let answer = try await server.send("POST", "/v1/alerts/\(id)/response", body: #"{"button":"Deploy"}"#,
                                               as: Tokens.alice)
            #expect(answer.status == 200, "\(answer.text)")
            #expect(answer.json["responder"] == .string("alice"))
            #expect(answer.json.keys.suffix(2) == ["responder", "votes"], "after resolvedAt, before votes")
            #expect(try await waiter.value.json["responder"] == .string("alice"), "the producer's long-poll")
            let read = try await server.send("GET", "/v1/alerts/\(id)", as: Tokens.ci)
            #expect(read.json["result"]?["responder"] == .string("alice"))
            let result = try await server.send("GET", "/v1/alerts/\(id)/response", as: Tokens.root)
            #expect(result.json["responder"] == .string("alice"))
            let list = try await server.send("GET", "/v1/alerts?state=resolved", as: Tokens.alice)
            #expect(list.json["alerts"]?[0]?["result"]?["responder"] == .string("alice"))
            let events = try await server.send("GET", "/v1/events?since=0&wait=1", as: Tokens.root)
            let answered = events.json.arrayValue?.first { $0["type"] == .string("answered") }
            #expect(answered?["alert"]?["result"]?["responder"] == .string("alice"), "\(events.text)")
            let late = try await server.send("POST", "/v1/alerts/\(id)/response", body: #"{"button":"Cancel"}"#,
                                             as: Tokens.root)
            #expect(expectProblem(late, 409)["result"]?["responder"] == .string("alice"), "the 409 names who won")
            let hook = try #require(try await receiver.waitForRequests(1).first)
            let delivered = try JSONParser.parse(hook.body)
            #expect(delivered["result"]?["responder"] == .string("alice"), "the webhook")

            let metrics = try await server.send("GET", "/metrics", as: Tokens.root).text
            #expect(metrics.contains(#"alertd_answers_total{responder="alice"} 1"#), "\(metrics)")
            #expect(!metrics.contains(#"responder="ci""#), "only answers are counted")
        }
    }

    @Test("a dismissal names the token that withdrew it; an expiry names nobody")
    func dismissalAndExpiry() async throws {
        try await Tokens.withTokens { server in
            let id = try await server.create(#"{"message":"withdraw me"}"#, as: Tokens.ci)
            let dismissed = try await server.send("DELETE", "/v1/alerts/\(id)", as: Tokens.ci)
            #expect(dismissed.json["resolution"] == .string("dismissed"))
            #expect(dismissed.json["responder"] == .string("ci"))
            let expiring = try await server.create(#"{"message":"soon","timeout":0.1}"#, as: Tokens.ci)
            let expired = try await server.send("GET", "/v1/alerts/\(expiring)/response?wait=10", as: Tokens.ci)
            #expect(expired.json["resolution"] == .string("expired"))
            #expect(expired.json["responder"] == .null)
            #expect(expired.json.keys.contains("responder"), "present, as null")
        }
    }

    @Test("in open mode the responder is null everywhere, and answers count under the empty name")
    func openMode() async throws {
        try await LiveServer.with { server in
            let id = try await server.create(#"{"title":"t","buttons":["Cancel","OK"]}"#)
            let answer = try await server.answer(id, #"{"button":"OK"}"#)
            #expect(answer.json["responder"] == .null && answer.json.keys.contains("responder"))
            #expect(try await server.alert(id).json["result"]?["responder"] == .null)
            let list = try await server.list("state=resolved")
            #expect(list["alerts"]?[0]?["result"]?["responder"] == .null)
            #expect(expectProblem(try await server.answer(id, #"{"button":"OK"}"#), 409)["result"]?["responder"]
                    == .null)
            let metrics = try await server.get("/metrics").text
            #expect(metrics.contains(#"alertd_answers_total{responder=""} 1"#), "\(metrics)")
        }
    }
}
