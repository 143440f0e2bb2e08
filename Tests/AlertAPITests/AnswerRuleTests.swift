@testable import AlertAPI
import Foundation
import JSON
import Testing

/// Rules that answer: `/v1/rules` for admins; a rule answers matching alerts at once as `rule:<name>`.
@Suite("Rules that answer alerts")
struct AnswerRuleTests {
    static let ci = "ci-producer-token-0001"
    static let alice = "alice-responder-token-03"
    static let root = "root-admin-token-000004"
    static let tokens = """
        ci:producer:\(ci)
        alice:responder:\(alice)
        root:admin:\(root)
        """

    static func withTokens(_ body: (LiveServer) async throws -> Void) async throws {
        try await LiveServer.with(transport: .inProcess, {
            $0.tokens = try! AccessTokens(parsing: tokens, source: "test")
        }, body)
    }

    static func state(_ server: LiveServer, _ id: String) async throws -> JSONValue {
        try await server.send("GET", "/v1/alerts/\(id)", as: root).json
    }

    @Test("a rule answers a matching alert at once as rule:<name>, in the create response, events and metrics; others stay pending")
    func answersMatching() async throws {
        try await Self.withTokens { server in
            let made = try await server.send("POST", "/v1/rules", body: #"{"name":"ok-deploys","#
                + #""match":{"presenter":"deploys","title":"Deploy * to staging?"},"button":"Yes"}"#, as: Self.root)
            #expect(made.status == 201, "\(made.text)")
            #expect(made.json["responder"]?.stringValue == "rule:ok-deploys")
            #expect(made.json["createdBy"]?.stringValue == "root")
            #expect(made.json["answered"] == .array([]))
            let created = try await server.send("POST", "/v1/alerts", body: #"{"title":"Deploy web to staging?","#
                + #""presenter":"deploys","buttons":["No","Yes"]}"#, as: Self.ci)
            #expect(created.status == 201, "\(created.text)")
            #expect(created.json["state"]?.stringValue == "resolved", "the create response shows the answer")
            #expect(created.json["result"]?["responder"]?.stringValue == "rule:ok-deploys")
            #expect(created.json["result"]?["buttonTitle"]?.stringValue == "Yes")
            let id = try #require(created.json["id"]?.stringValue)
            // Leaves others alone: another presenter, another title, no such button, a producer asking for people.
            let others = [
                #"{"title":"Deploy web to staging?","presenter":"other","buttons":["No","Yes"]}"#,
                #"{"title":"Deploy web to prod?","presenter":"deploys","buttons":["No","Yes"]}"#,
                #"{"title":"Deploy web to staging?","presenter":"deploys","buttons":["No","Go"]}"#,
                #"{"title":"Deploy web to staging?","presenter":"deploys","buttons":["No","Yes"],"fourEyes":true}"#,
                #"{"title":"Deploy web to staging?","presenter":"deploys","buttons":["No","Yes"],"responders":["alice"]}"#,
            ]
            for body in others {
                let other = try await server.create(body, as: Self.ci)
                #expect(try await Self.state(server, other)["state"]?.stringValue == "pending", "\(body)")
            }
            let events = try await server.send("GET", "/v1/events?since=0&wait=0", as: Self.root).json
            let kinds = events.arrayValue?.filter { $0["alert"]?["id"]?.stringValue == id }.compactMap { $0["type"]?.stringValue }
            #expect(kinds == ["created", "answered"], "\(events)")
            let metrics = try await server.send("GET", "/metrics", as: Self.root).text
            #expect(metrics.contains(#"alertd_rule_answers_total{rule="ok-deploys"} 1"#), "\(metrics)")
            #expect(metrics.contains(#"alertd_answers_total{responder="rule:ok-deploys"} 1"#))
        }
    }

    @Test("a new rule answers the matching pending alerts and lists them; get, list and delete by name")
    func answersPendingAndManages() async throws {
        try await Self.withTokens { server in
            let pending = try await server.create(#"{"title":"Restart cache?","tag":7,"buttons":["No","Yes"]}"#,
                                                  as: Self.ci)
            let other = try await server.create(#"{"title":"Restart cache?","tag":8,"buttons":["No","Yes"]}"#,
                                                as: Self.ci)
            let made = try await server.send("POST", "/v1/rules", body: #"{"name":"cache","match":{"tag":7,"#
                + #""owner":"ci"},"button":"No","expiresIn":3600}"#, as: Self.root)
            #expect(made.status == 201, "\(made.text)")
            #expect(made.json["answered"] == .array([.string(pending)]))
            #expect(made.json["expired"] == .bool(false))
            #expect(made.json["expiresAt"]?.stringValue != nil)
            let answered = try await Self.state(server, pending)
            #expect(answered["result"]?["responder"]?.stringValue == "rule:cache")
            #expect(answered["result"]?["ok"] == .bool(false))
            #expect(try await Self.state(server, other)["state"]?.stringValue == "pending")
            let read = try await server.send("GET", "/v1/rules/cache", as: Self.root)
            #expect(read.status == 200 && read.json["match"]?["tag"]?.int64Value == 7, "\(read.text)")
            let list = try await server.send("GET", "/v1/rules", as: Self.root)
            #expect(list.json["rules"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["cache"])
            let duplicate = try await server.send("POST", "/v1/rules", body: #"{"name":"cache","match":{"tag":8},"#
                + #""button":"No"}"#, as: Self.root)
            _ = expectProblem(duplicate, 409, type: "urn:alertd:problem:rule-exists")
            #expect(try await Self.state(server, other)["state"]?.stringValue == "pending", "a refused rule answers nothing")
            #expect(try await server.send("DELETE", "/v1/rules/cache", as: Self.root).status == 200)
            _ = expectProblem(try await server.send("GET", "/v1/rules/cache", as: Self.root), 404)
            _ = expectProblem(try await server.send("DELETE", "/v1/rules/cache", as: Self.root), 404)
            let later = try await server.create(#"{"title":"Restart cache?","tag":7,"buttons":["No","Yes"]}"#,
                                                as: Self.ci)
            #expect(try await Self.state(server, later)["state"]?.stringValue == "pending", "a removed rule answers no more")
        }
    }

    @Test("only admins manage rules: a producer and a responder get 403 on every /v1/rules call")
    func adminsOnly() async throws {
        try await Self.withTokens { server in
            for token in [Self.ci, Self.alice] {
                _ = expectProblem(try await server.send("GET", "/v1/rules", as: token), 403)
                _ = expectProblem(try await server.send("POST", "/v1/rules", body: #"{"name":"x","#
                    + #""match":{"tag":1},"button":"OK"}"#, as: token), 403)
                _ = expectProblem(try await server.send("DELETE", "/v1/rules/x", as: token), 403)
            }
            #expect(try await server.send("GET", "/v1/rules", as: Self.root).json["rules"] == .array([]))
        }
    }

    @Test("a bad rule is 422 naming each member, and changes nothing")
    func badRules() async throws {
        try await Self.withTokens { server in
            let cases: [(String, String)] = [
                (#"{"name":"bad name","match":{"tag":1},"button":"OK"}"#, "/name"),
                (#"{"name":"all","match":{},"button":"OK"}"#, "/match"),
                (#"{"name":"x","match":{"tag":1}}"#, "/button"),
                (#"{"name":"x","match":{"title":""},"button":"OK"}"#, "/match/title"),
                (#"{"name":"x","match":{"tag":"1"},"button":"OK"}"#, "/match/tag"),
                (#"{"name":"x","match":{"toolInput":{"command":"ls"}},"button":"OK"}"#, "/match/toolInput"),
                (#"{"name":"x","match":{"tool":"Bash","toolInput":{"timeout":5}},"button":"OK"}"#,
                 "/match/toolInput/timeout"),
                (#"{"name":"x","match":{"tag":1},"button":"OK","expiresIn":-1}"#, "/expiresIn"),
                (#"{"name":"x","match":{"tag":1,"colour":"red"},"button":"OK"}"#, "/match/colour"),
            ]
            for (body, pointer) in cases {
                let problem = expectProblem(try await server.send("POST", "/v1/rules", body: body, as: Self.root), 422)
                let pointers = problem["errors"]?.arrayValue?.compactMap { $0["pointer"]?.stringValue } ?? []
                #expect(pointers.contains(pointer), "\(body): \(problem)")
            }
            #expect(try await server.send("GET", "/v1/rules", as: Self.root).json["rules"] == .array([]))
        }
    }

    @Test("an expired rule stops matching and is listed as expired")
    func expires() async throws {
        try await Self.withTokens { server in
            let made = try await server.send("POST", "/v1/rules", body: #"{"name":"brief","match":{"tag":3},"#
                + #""button":"OK","expiresIn":0.3}"#, as: Self.root)
            #expect(made.status == 201, "\(made.text)")
            let deadline = Date().addingTimeInterval(30)
            var expired = false
            while !expired, Date() < deadline {
                expired = try await server.send("GET", "/v1/rules/brief", as: Self.root).json["expired"] == .bool(true)
                if !expired { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(expired)
            let id = try await server.create(#"{"title":"x","tag":3}"#, as: Self.ci)
            #expect(try await Self.state(server, id)["state"]?.stringValue == "pending")
        }
    }

    @Test("an agent's approval (tool and toolInput) is answered by a tool rule without waking anyone")
    func toolRule() async throws {
        try await Self.withTokens { server in
            let made = try await server.send("POST", "/v1/rules", body: #"{"name":"git-status","#
                + #""match":{"tool":"Bash","toolInput":{"command":"git status*"}},"button":"Allow"}"#, as: Self.root)
            #expect(made.status == 201, "\(made.text)")
            let approval = #"{"title":"Allow Bash?","message":"{}","buttons":[{"title":"Deny","style":"cancel"},"#
                + #""Allow"],"fields":[{"placeholder":"Reason (optional)"}],"tool":"Bash","#
            let allowed = try await server.send("POST", "/v1/alerts", body: approval
                + #""toolInput":{"command":"git status --short","timeout":5}}"#, as: Self.ci)
            #expect(allowed.json["result"]?["responder"]?.stringValue == "rule:git-status", "\(allowed.text)")
            #expect(allowed.json["result"]?["buttonIndex"]?.int64Value == 1)
            #expect(allowed.json["toolInput"]?["timeout"]?.stringValue == "5", "non-strings are kept as JSON text")
            let asked = try await server.send("POST", "/v1/alerts", body: approval
                + #""toolInput":{"command":"rm -rf /"}}"#, as: Self.ci)
            #expect(asked.json["state"]?.stringValue == "pending", "\(asked.text)")
            #expect(asked.json["tool"]?.stringValue == "Bash")
        }
    }
}
