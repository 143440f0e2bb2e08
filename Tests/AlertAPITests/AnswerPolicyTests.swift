@testable import AlertAPI
import Foundation
import JSON
import Testing

/// Who may answer an alert: `responders`, `groups` (from the tokens file, reloaded with it) and `fourEyes`.
@Suite("Answer policy: who may answer")
struct AnswerPolicyTests {
    static let ci = "ci-producer-token-0001"
    static let alice = "alice-responder-token-03"
    static let bob = "bob-responder-token-0005"
    static let carol = "carol-responder-token-06"
    static let root = "root-admin-token-000004"
    static let boss = "boss-admin-token-0000007"
    static let tokens = """
        ci:producer:\(ci)
        alice:responder:\(alice)
        bob:responder:\(bob):ops dba
        carol:responder:\(carol):dba
        root:admin:\(root)
        boss:admin:\(boss)
        """

    static func withTokens(_ text: String = tokens, file: String? = nil,
                           _ body: (LiveServer) async throws -> Void) async throws {
        try await LiveServer.with(transport: .inProcess, {
            $0.tokens = try! AccessTokens(parsing: text, source: "test")
            $0.tokensFile = file
        }, body)
    }

    static func state(_ server: LiveServer, _ id: String) async throws -> String? {
        try await server.send("GET", "/v1/alerts/\(id)", as: root).json["state"]?.stringValue
    }

    @Test("a named responder answers; another responder gets 403 not-a-responder and nothing changes")
    func namedResponders() async throws {
        try await Self.withTokens { server in
            let id = try await server.create(#"{"title":"Deploy?","buttons":["No","Yes"],"responders":["alice"]}"#,
                                             as: Self.ci)
            let shown = try await server.send("GET", "/v1/alerts/\(id)", as: Self.bob).json
            #expect(shown["responders"] == .array([.string("alice")]))
            #expect(shown["groups"] == .array([]))
            #expect(shown["fourEyes"] == .bool(false))
            #expect(try await server.list(as: Self.bob) == [id], "an alert bob may not answer is still listed to him")
            let refused = try await server.send("POST", "/v1/alerts/\(id)/response", body: #"{"button":"Yes"}"#,
                                                as: Self.bob)
            let problem = expectProblem(refused, 403, type: "urn:alertd:problem:not-a-responder")
            #expect(problem["detail"]?.stringValue?.contains("'alice'") == true, "\(problem)")
            #expect(try await Self.state(server, id) == "pending")
            let answered = try await server.send("POST", "/v1/alerts/\(id)/response", body: #"{"button":"Yes"}"#,
                                                 as: Self.alice)
            #expect(answered.status == 200, "\(answered.text)")
            #expect(answered.json["responder"]?.stringValue == "alice")
            // Once resolved, the refused responder still gets 403 (not the winner): the policy is checked first.
            _ = expectProblem(try await server.send("POST", "/v1/alerts/\(id)/response", body: #"{"buttonIndex":0}"#,
                                                    as: Self.bob), 403)
        }
    }

    @Test("groups from the tokens file: a member answers, a non-member is refused; admins may answer any")
    func groupsAndAdmins() async throws {
        try await Self.withTokens { server in
            let ops = try await server.create(#"{"message":"restart db?","groups":["ops"]}"#, as: Self.ci)
            _ = expectProblem(try await server.send("POST", "/v1/alerts/\(ops)/response", body: #"{"buttonIndex":0}"#,
                                                    as: Self.carol), 403, type: "urn:alertd:problem:not-a-responder")
            #expect(try await server.send("POST", "/v1/alerts/\(ops)/response", body: #"{"buttonIndex":0}"#,
                                          as: Self.bob).status == 200)
            let dba = try await server.create(#"{"message":"vacuum?","responders":["alice"],"groups":["dba"]}"#,
                                              as: Self.ci)
            #expect(try await server.send("POST", "/v1/alerts/\(dba)/response", body: #"{"buttonIndex":0}"#,
                                          as: Self.root).status == 200, "an admin may answer past the lists")
            // The producer still withdraws an alert it may not answer.
            let withdrawn = try await server.create(#"{"message":"x","responders":["alice"]}"#, as: Self.ci)
            #expect(try await server.send("DELETE", "/v1/alerts/\(withdrawn)", as: Self.ci).status == 200)
        }
    }

    @Test("four eyes: the creating token may not answer its own alert, even an admin; another admin may")
    func fourEyes() async throws {
        try await Self.withTokens { server in
            let id = try await server.create(#"{"message":"drop table?","fourEyes":true}"#, as: Self.root)
            let refused = try await server.send("POST", "/v1/alerts/\(id)/response", body: #"{"buttonIndex":0}"#,
                                                as: Self.root)
            let problem = expectProblem(refused, 403, type: "urn:alertd:problem:not-a-responder")
            #expect(problem["detail"]?.stringValue?.contains("four eyes") == true)
            #expect(try await Self.state(server, id) == "pending")
            #expect(try await server.send("POST", "/v1/alerts/\(id)/response", body: #"{"buttonIndex":0}"#,
                                          as: Self.boss).status == 200)
        }
    }

    @Test("GET /v1/me names the caller, its role and its groups; a reload of the tokens file changes the groups")
    func meAndReload() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("alertd-groups-\(UUID()).txt")
        defer { try? FileManager.default.removeItem(at: file) }
        try Self.tokens.write(to: file, atomically: true, encoding: .utf8)
        try await Self.withTokens(file: file.path) { server in
            let me = try await server.send("GET", "/v1/me", as: Self.bob).json
            #expect(me["name"] == .string("bob"))
            #expect(me["role"] == .string("responder"))
            #expect(me["groups"] == .array([.string("dba"), .string("ops")]))
            let first = try await server.create(#"{"message":"a","groups":["ops"]}"#, as: Self.ci)
            let second = try await server.create(#"{"message":"b","groups":["ops"]}"#, as: Self.ci)
            _ = expectProblem(try await server.send("POST", "/v1/alerts/\(first)/response", body: #"{"buttonIndex":0}"#,
                                                    as: Self.alice), 403)
            try Self.tokens.replacingOccurrences(of: "alice:responder:\(Self.alice)",
                                                 with: "alice:responder:\(Self.alice):ops")
                .replacingOccurrences(of: ":ops dba", with: ":dba")
                .write(to: file, atomically: true, encoding: .utf8)
            #expect(server.app.reloadTokens())
            #expect(try await server.send("GET", "/v1/me", as: Self.alice).json["groups"] == .array([.string("ops")]))
            #expect(try await server.send("POST", "/v1/alerts/\(first)/response", body: #"{"buttonIndex":0}"#,
                                          as: Self.alice).status == 200)
            _ = expectProblem(try await server.send("POST", "/v1/alerts/\(second)/response",
                                                    body: #"{"buttonIndex":0}"#, as: Self.bob), 403)
        }
    }

    @Test("tokens file groups: a name's groups are those of all its entries; a bad group names its line")
    func tokensFileGroups() throws {
        let tokens = try AccessTokens(parsing: "bob:responder:bob-old-token-000001:ops\nbob:responder:bob-new-token-000002:"
            + "dba  oncall\nalice:responder:alice-token-0000003", source: "tokens")
        #expect(tokens.caller(presenting: Substring("bob-old-token-000001").utf8)?.groups == ["ops", "dba", "oncall"])
        #expect(tokens.caller(presenting: Substring("alice-token-0000003").utf8)?.groups == [])
        let error = #expect(throws: ConfigurationError.self) {
            try AccessTokens(parsing: "a:admin:admin-token-00000001\nbob:responder:bob-old-token-000001:ops o/ps",
                             source: "tokens")
        }
        #expect(error?.description.contains("tokens line 2") == true && error?.description.contains("'o/ps'") == true,
                "\(String(describing: error))")
        #expect(error?.description.contains("bob-old-token") == false)
    }

    @Test("bad responders, groups or fourEyes are 422 naming the member, and create nothing", arguments: [
        (#"{"message":"x","responders":["alice","no spaces"]}"#, "/responders/1"),
        (#"{"message":"x","responders":["alice","alice"]}"#, "/responders/1"),
        (#"{"message":"x","groups":"ops"}"#, "/groups"),
        (#"{"message":"x","groups":[7]}"#, "/groups/0"),
        (#"{"message":"x","fourEyes":"yes"}"#, "/fourEyes"),
    ])
    func validation(body: String, pointer: String) async throws {
        try await Self.withTokens { server in
            _ = expectProblem(try await server.send("POST", "/v1/alerts", body: body, as: Self.ci), 422,
                              pointer: pointer)
            #expect(try await server.list(as: Self.root, "state=all").isEmpty)
        }
    }

    @Test("without tokens the policy names nobody: anyone answers, four eyes included (nobody has a name)")
    func openServer() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(#"{"message":"x","responders":["alice"],"fourEyes":true}"#)
            #expect(try await server.answer(id, #"{"buttonIndex":0}"#).status == 200)
            let me = try await server.get("/v1/me").json
            #expect(me["name"] == .null)
            #expect(me["role"] == .string("admin"))
        }
    }

    @Test("the policy survives a restart with a data dir")
    func restart() async throws {
        let data = FileManager.default.temporaryDirectory.path + "/alertd-policy-restart-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: data) }
        let configure: (inout AlertdConfiguration) -> Void = {
            $0.tokens = try! AccessTokens(parsing: Self.tokens, source: "test")
            $0.dataDirectory = data
        }
        var id = ""
        try await LiveServer.with(transport: .inProcess, configure) { server in
            id = try await server.create(#"{"message":"x","responders":["alice"],"groups":["ops"],"fourEyes":true}"#,
                                         as: Self.root)
        }
        try await LiveServer.with(transport: .inProcess, configure) { server in
            let alert = try await server.send("GET", "/v1/alerts/\(id)", as: Self.root).json
            #expect(alert["responders"] == .array([.string("alice")]))
            #expect(alert["groups"] == .array([.string("ops")]))
            #expect(alert["fourEyes"] == .bool(true))
            _ = expectProblem(try await server.send("POST", "/v1/alerts/\(id)/response", body: #"{"buttonIndex":0}"#,
                                                    as: Self.carol), 403)
            _ = expectProblem(try await server.send("POST", "/v1/alerts/\(id)/response", body: #"{"buttonIndex":0}"#,
                                                    as: Self.root), 403)
            #expect(try await server.send("POST", "/v1/alerts/\(id)/response", body: #"{"buttonIndex":0}"#,
                                          as: Self.bob).status == 200)
        }
    }
}
