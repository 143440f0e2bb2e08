@testable import AlertAPI
import Foundation
import JSON
import Testing

/// Quorum: `quorum: N` alerts resolve once N distinct allowed responders chose the same non-cancel button; a cancel
/// vetoes at once; a responder votes once (409 `already-voted`); each vote is a `voted` event and shows in the alert.
@Suite("Quorum: how many must agree")
struct QuorumTests {
    static let ci = "ci-producer-token-0001"
    static let root = "root-admin-token-000004"
    /// voter-00 … voter-23, responders.
    static let voters = (0..<24).map { String(format: "voter-%02d", $0) }
    static func token(_ voter: String) -> String { "\(voter)-responder-token-0000" }
    static let tokens = (["ci:producer:\(ci)", "root:admin:\(root)"]
        + voters.map { "\($0):responder:\(token($0))" }).joined(separator: "\n")

    static func withServer(_ body: (LiveServer) async throws -> Void) async throws {
        try await LiveServer.with(transport: .http, { $0.tokens = try! AccessTokens(parsing: tokens, source: "test") },
                                  body)
    }

    static func vote(_ server: LiveServer, _ id: String, _ voter: String, button: Int) async throws -> WireResponse {
        try await server.send("POST", "/v1/alerts/\(id)/response", body: #"{"buttonIndex":\#(button)}"#,
                              as: token(voter))
    }

    static func alert(_ server: LiveServer, _ id: String) async throws -> JSONValue {
        try await server.send("GET", "/v1/alerts/\(id)", as: root).json
    }

    static func events(_ server: LiveServer) async throws -> [JSONValue] {
        try await server.send("GET", "/v1/events?since=0&wait=0", as: root).json.arrayValue ?? []
    }

    @Test("quorum 2 of 3: one vote leaves it pending (202, voted event); the second matching vote resolves it once")
    func twoOfThree() async throws {
        try await Self.withServer { server in
            let body = #"{"title":"Deploy?","buttons":["No","Yes"],"responders":["voter-00","voter-01","voter-02"],"#
                + #""quorum":2}"#
            let id = try await server.create(body, as: Self.ci)
            #expect(try await Self.alert(server, id)["quorum"]?.int64Value == 2)
            let first = try await Self.vote(server, id, "voter-00", button: 1)
            #expect(first.status == 202, "\(first.text)")
            #expect(first.json["state"] == .string("pending"))
            #expect(first.json["votes"]?.arrayValue?.count == 1)
            let shown = try await Self.alert(server, id)
            #expect(shown["state"] == .string("pending"))
            #expect(shown["votes"]?[0]?["responder"] == .string("voter-00"))
            #expect(shown["votes"]?[0]?["buttonIndex"]?.int64Value == 1)
            #expect(shown["votes"]?[0]?["at"]?.stringValue != nil)
            #expect(try await Self.events(server).map { $0["type"]?.stringValue ?? "" } == ["created", "voted"])
            // A vote for another button does not count toward Yes.
            let other = try await server.create(body, as: Self.ci)
            _ = try await Self.vote(server, other, "voter-00", button: 1)

            let second = try await Self.vote(server, id, "voter-01", button: 1)
            #expect(second.status == 200, "\(second.text)")
            #expect(second.json["buttonIndex"]?.int64Value == 1)
            #expect(second.json["responder"] == .string("voter-01"))
            let votes = second.json["votes"]?.arrayValue ?? []
            #expect(votes.map { $0["responder"]?.stringValue ?? "" } == ["voter-00", "voter-01"])
            let after = try await Self.alert(server, id)
            #expect(after["state"] == .string("resolved"))
            #expect(after["result"]?["votes"]?.arrayValue?.count == 2)
            let late = try await Self.vote(server, id, "voter-02", button: 1)
            #expect(late.status == 409, "\(late.text)")
            let kinds = try await Self.events(server).filter { $0["alert"]?["id"]?.stringValue == id }
                .map { $0["type"]?.stringValue ?? "" }
            #expect(kinds == ["created", "voted", "answered"], "resolved once")
        }
    }

    @Test("a cancel vote vetoes at once; a second vote by the same responder is 409 already-voted and changes nothing")
    func vetoAndDoubleVote() async throws {
        try await Self.withServer { server in
            let body = #"{"title":"Drop?","buttons":[{"title":"No","style":"cancel"},"Yes"],"quorum":3}"#
            let id = try await server.create(body, as: Self.ci)
            #expect(try await Self.vote(server, id, "voter-00", button: 1).status == 202)
            let again = try await Self.vote(server, id, "voter-00", button: 1)
            let problem = expectProblem(again, 409, type: "urn:alertd:problem:already-voted")
            #expect(problem["detail"]?.stringValue?.contains("voter-00") == true)
            #expect(try await Self.alert(server, id)["votes"]?.arrayValue?.count == 1, "nothing changed")
            let veto = try await Self.vote(server, id, "voter-01", button: 0)
            #expect(veto.status == 200, "\(veto.text)")
            #expect(veto.json["ok"] == .bool(false))
            #expect(veto.json["responder"] == .string("voter-01"))
            #expect(veto.json["votes"]?.arrayValue?.count == 2)
            #expect(try await Self.alert(server, id)["state"] == .string("resolved"))
        }
    }

    @Test("only allowed responders vote (403, no vote); a batch answer reports voted and already-voted")
    func policyAndBatch() async throws {
        try await Self.withServer { server in
            let body = #"{"title":"Deploy?","buttons":["No","Yes"],"responders":["voter-00","voter-01"],"quorum":2}"#
            let id = try await server.create(body, as: Self.ci)
            _ = expectProblem(try await Self.vote(server, id, "voter-05", button: 1), 403,
                              type: "urn:alertd:problem:not-a-responder")
            #expect(try await Self.alert(server, id)["votes"]?.arrayValue?.isEmpty == true)
            let batch = #"{"ids":["\#(id)"],"buttonIndex":1}"#
            let first = try await server.send("POST", "/v1/answers", body: batch, as: Self.token("voter-00"))
            #expect(first.json["outcomes"]?[0]?["outcome"] == .string("voted"), "\(first.text)")
            let again = try await server.send("POST", "/v1/answers", body: batch, as: Self.token("voter-00"))
            #expect(again.json["outcomes"]?[0]?["outcome"] == .string("already-voted"), "\(again.text)")
            let last = try await server.send("POST", "/v1/answers", body: batch, as: Self.token("voter-01"))
            #expect(last.json["outcomes"]?[0]?["outcome"] == .string("answered"), "\(last.text)")
            #expect(last.json["outcomes"]?[0]?["result"]?["votes"]?.arrayValue?.count == 2)
        }
    }

    @Test("bad quorums are 422 naming /quorum and create nothing")
    func validation() async throws {
        try await Self.withServer { server in
            for body in [#"{"title":"x","quorum":0}"#, #"{"title":"x","quorum":21}"#, #"{"title":"x","quorum":"2"}"#,
                         #"{"title":"x","quorum":2,"fields":[{"placeholder":"why"}]}"#,
                         #"{"title":"x","quorum":3,"responders":["voter-00","voter-01"]}"#] {
                let response = try await server.send("POST", "/v1/alerts", body: body, as: Self.ci)
                let problem = expectProblem(response, 422)
                let pointers = problem["errors"]?.arrayValue?.compactMap { $0["pointer"]?.stringValue } ?? []
                #expect(pointers.contains("/quorum"), "\(body): \(problem)")
            }
            #expect(try await server.list(as: Self.root).isEmpty)
        }
    }

    @Test("24 racing voters on quorum 3: exactly one resolution with exactly 3 votes")
    func racingVoters() async throws {
        try await Self.withServer { server in
            let id = try await server.create(#"{"title":"Ship?","buttons":["No","Yes"],"quorum":3}"#, as: Self.ci)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for voter in Self.voters {
                    group.addTask { try await Self.vote(server, id, voter, button: 1).status }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 200 }.count == 1, "\(statuses.sorted())")
            #expect(statuses.filter { $0 == 202 }.count == 2, "\(statuses.sorted())")
            #expect(statuses.filter { $0 == 409 }.count == 21, "\(statuses.sorted())")
            let alert = try await Self.alert(server, id)
            #expect(alert["result"]?["votes"]?.arrayValue?.count == 3)
            let voters = Set(alert["result"]?["votes"]?.arrayValue?.compactMap { $0["responder"]?.stringValue } ?? [])
            #expect(voters.count == 3)
            let kinds = try await Self.events(server).map { $0["type"]?.stringValue ?? "" }
            #expect(kinds.filter { $0 == "answered" }.count == 1)
            #expect(kinds.filter { $0 == "voted" }.count == 2)
        }
    }
}
