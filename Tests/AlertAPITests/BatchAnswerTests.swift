@testable import AlertAPI
import Foundation
import JSON
import Testing

/// `POST /v1/answers`: one button for many alerts, each alert's own outcome reported.
@Suite("Answering many alerts at once")
struct BatchAnswerTests {
    @Test("a mix of pending, resolved, forbidden and unknown ids: each gets its own outcome, in order")
    func mixedOutcomes() async throws {
        let tokens = AnswerPolicyTests.tokens
        try await LiveServer.with(transport: .inProcess, { $0.tokens = try! AccessTokens(parsing: tokens, source: "t") }) {
            server in
            let ci = AnswerPolicyTests.ci
            let first = try await server.create(#"{"title":"One","buttons":["No","Yes"]}"#, as: ci)
            let second = try await server.create(#"{"title":"Two","buttons":["No","Yes"]}"#, as: ci)
            let resolved = try await server.create(#"{"title":"Done","buttons":["No","Yes"]}"#, as: ci)
            let forbidden = try await server.create(#"{"title":"Bob's","buttons":["No","Yes"],"responders":["bob"]}"#,
                                                    as: ci)
            let noSuchButton = try await server.create(#"{"title":"Other","buttons":["Cancel","Go"]}"#, as: ci)
            #expect(try await server.send("POST", "/v1/alerts/\(resolved)/response", body: #"{"button":"No"}"#,
                                          as: AnswerPolicyTests.carol).status == 200)
            let ids = [first, "no-such-alert", resolved, forbidden, second, noSuchButton]
            let body = #"{"ids":[\#(ids.map { "\"\($0)\"" }.joined(separator: ","))],"button":"Yes"}"#
            let response = try await server.send("POST", "/v1/answers", body: body, as: AnswerPolicyTests.alice)
            #expect(response.status == 200, "\(response.text)")
            let outcomes = response.json["outcomes"]?.arrayValue ?? []
            try #require(outcomes.count == ids.count, "\(response.text)")
            #expect(outcomes.map { $0["id"]?.stringValue } == ids)
            #expect(outcomes.map { $0["outcome"]?.stringValue } == [
                "answered", "not-found", "already-resolved", "not-allowed", "answered", "invalid",
            ])
            #expect(outcomes[0]["result"]?["buttonTitle"] == .string("Yes"))
            #expect(outcomes[0]["result"]?["responder"] == .string("alice"))
            #expect(outcomes[2]["result"]?["buttonTitle"] == .string("No"), "the winner of the earlier answer")
            #expect(outcomes[2]["result"]?["responder"] == .string("carol"))
            // What each outcome says is what the store holds.
            let root = AnswerPolicyTests.root
            for (id, state) in [(first, "resolved"), (second, "resolved"), (forbidden, "pending"),
                                (noSuchButton, "pending")] {
                #expect(try await server.send("GET", "/v1/alerts/\(id)", as: root).json["state"]?.stringValue == state)
            }
        }
    }

    @Test("a bad batch is 422 naming the member and answers nothing", arguments: [
        (#"{"button":"Yes"}"#, "/ids"),
        (#"{"ids":[],"button":"Yes"}"#, "/ids"),
        (#"{"ids":["a","a"],"button":"Yes"}"#, "/ids/1"),
        (#"{"ids":[1],"button":"Yes"}"#, "/ids/0"),
        (#"{"ids":["a"],"buttons":"Yes"}"#, "/buttons"),
        (#"{"ids":["a"],"button":"Yes","values":[""# + String(repeating: "x", count: 1025) + #""]}"#, "/values/0"),
        (#"{"ids":["a"],"button":"Yes","values":["1","2","3","4","5","6","7","8","9"]}"#, "/values"),
    ])
    func badBatch(body: String, pointer: String) async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(#"{"title":"One","buttons":["No","Yes"]}"#)
            let fixed = body.replacingOccurrences(of: #"["a"]"#, with: #"["\#(id)"]"#)
            _ = expectProblem(try await server.post("/v1/answers", fixed), 422, pointer: pointer)
            #expect(try await server.get("/v1/alerts/\(id)").json["state"]?.stringValue == "pending")
        }
    }

    @Test("answering the same alerts from two batches at once: each alert is answered exactly once")
    func racingBatches() async throws {
        try await LiveServer.with { server in
            var ids: [String] = []
            for index in 0..<20 { ids.append(try await server.create(#"{"title":"A\#(index)","buttons":["No","Yes"]}"#)) }
            let body = #"{"ids":[\#(ids.map { "\"\($0)\"" }.joined(separator: ","))],"buttonIndex":1}"#
            async let one = server.post("/v1/answers", body)
            async let two = server.post("/v1/answers", body)
            let (a, b) = try await (one, two)
            let first = a.json["outcomes"]?.arrayValue ?? []
            let second = b.json["outcomes"]?.arrayValue ?? []
            try #require(first.count == 20 && second.count == 20, "\(a.text) \(b.text)")
            for (x, y) in zip(first, second) {
                let kinds = Set([x["outcome"]?.stringValue, y["outcome"]?.stringValue])
                #expect(kinds == ["answered", "already-resolved"], "\(x) \(y)")
            }
        }
    }
}
