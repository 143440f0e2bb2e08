@testable import AlertAPI
import Foundation
import JSON
import Testing

/// Escalation: an alert nobody resolves in time moves, step by step, to other presenters, and more responders may
/// answer it; each step is an `escalated` event. The tests wait on the events (long-polls), never on a sleep.
@Suite("Escalation: where an alert goes when nobody answers")
struct EscalationTests {
    static let ci = "ci-producer-token-0001"
    static let ana = "ana-responder-token-0002"
    static let ben = "ben-responder-token-0003"
    static let cy = "cyy-responder-token-0004"
    static let root = "root-admin-token-000004"
    static let tokens = """
        ci:producer:\(ci)
        ana:responder:\(ana)
        ben:responder:\(ben):oncall
        cy:responder:\(cy)
        root:admin:\(root)
        """

    static func withServer(_ body: (LiveServer) async throws -> Void) async throws {
        try await LiveServer.with(transport: .http, { $0.tokens = try! AccessTokens(parsing: tokens, source: "test") },
                                  body)
    }

    /// The events after `since` (for `presenter` when given), waiting up to 20 s for the first.
    static func events(_ server: LiveServer, since: UInt64, presenter: String? = nil) async throws -> [JSONValue] {
        let filter = presenter.map { "&presenter=\($0)" } ?? ""
        let response = try await server.send("GET", "/v1/events?since=\(since)&wait=20\(filter)", as: root)
        #expect(response.status == 200, "\(response.text)")
        return response.json.arrayValue ?? []
    }

    /// Events after `since` until one of `type` for alert `id` came (each long-poll wakes at the next event).
    static func until(
        _ type: String, of id: String, _ server: LiveServer, since: UInt64 = 0
    ) async throws -> [JSONValue] {
        var seen: [JSONValue] = []
        var cursor = since
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let batch = try await events(server, since: cursor)
            seen += batch
            cursor = batch.last?["id"]?.int64Value.map(UInt64.init) ?? cursor
            if batch.contains(where: { $0["type"] == .string(type) && $0["alert"]?["id"] == .string(id) }) {
                return seen
            }
        }
        Issue.record("no \(type) event for \(id) within 30 s; saw \(seen.map { $0["type"] ?? .null })")
        return seen
    }

    @Test("escalation fires after its time: moves the presenter, widens responders, emits escalated to both presenters")
    func stepFires() async throws {
        try await Self.withServer { server in
            let body = #"{"title":"Restart db?","buttons":["No","Yes"],"presenter":"team","responders":["ana"],"#
                + #""escalation":[{"after":2,"presenter":"oncall","responders":["ben"]}]}"#
            let id = try await server.create(body, as: Self.ci)
            let shown = try await server.send("GET", "/v1/alerts/\(id)", as: Self.root).json
            #expect(shown["escalation"]?[0]?["presenter"] == .string("oncall"))
            #expect(shown["escalation"]?[0]?["after"]?.doubleValue == 2)
            #expect(shown["escalated"] == .array([]))
            // Before the step, ben may not answer.
            let early = try await server.send("POST", "/v1/alerts/\(id)/response", body: #"{"buttonIndex":1}"#,
                                              as: Self.ben)
            if early.status != 403 {
                // Only when the step fired between the create and ben's answer (2 s on a loaded machine).
                #expect(early.status == 200, "\(early.text)")
                let now = try await server.send("GET", "/v1/alerts/\(id)", as: Self.root).json
                #expect(now["escalated"]?.arrayValue?.count == 1, "ben answered before the step: \(now)")
                return
            }
            let seen = try await Self.until("escalated", of: id, server)
            let escalated = try #require(seen.first { $0["type"] == .string("escalated") })
            #expect(escalated["alert"]?["presenter"] == .string("oncall"))
            #expect(escalated["alert"]?["escalated"]?[0]?["from"] == .string("team"))
            #expect(escalated["alert"]?["escalated"]?[0]?["to"] == .string("oncall"))
            #expect(escalated["alert"]?["responders"] == .array([.string("ana"), .string("ben")]))
            // Watchers of the presenter it left and of the one it reached both see the step.
            for presenter in ["team", "oncall"] {
                let filtered = try await Self.events(server, since: 0, presenter: presenter)
                let types = filtered.compactMap { event in event["type"]?.stringValue }
                #expect(types.contains("escalated"), "\(presenter): \(types)")
            }
            #expect(try await server.list(as: Self.root, "presenter=oncall") == [id])
            #expect(try await server.list(as: Self.root, "presenter=team") == [])
            let metrics = try await server.send("GET", "/metrics", as: Self.root).text
            #expect(metrics.contains("alertd_alerts_escalated_total 1"), "\(metrics.prefix(400))")
            // Now ben may answer; cy still may not.
            let refused = try await server.send("POST", "/v1/alerts/\(id)/response", body: #"{"buttonIndex":1}"#,
                                                as: Self.cy)
            #expect(refused.status == 403, "\(refused.text)")
            let answered = try await server.send("POST", "/v1/alerts/\(id)/response", body: #"{"buttonIndex":1}"#,
                                                 as: Self.ben)
            #expect(answered.status == 200, "\(answered.text)")
            #expect(answered.json["responder"] == .string("ben"))
        }
    }

    @Test("a chain of steps fires in order, each once, and the timeout (counted from creation) ends it as written")
    func chainThenTimeout() async throws {
        try await Self.withServer { server in
            let body = #"{"title":"Disk full","buttons":["Ignore","Fix"],"presenter":"a","groups":["oncall"],"#
                + #""timeout":1.5,"escalation":[{"after":0.3,"presenter":"b"},"#
                + #"{"after":0.7,"presenter":"c","responders":["cy"]}]}"#
            let id = try await server.create(body, as: Self.ci)
            let seen = try await Self.until("expired", of: id, server)
            let mine = seen.filter { $0["alert"]?["id"] == .string(id) }
            let types = mine.compactMap { event in event["type"]?.stringValue }
            let presenters = mine.compactMap { event in event["alert"]?["presenter"]?.stringValue }
            #expect(types == ["created", "escalated", "escalated", "expired"])
            #expect(presenters == ["a", "b", "c", "c"])
            let result = try await server.send("GET", "/v1/alerts/\(id)", as: Self.root).json
            #expect(result["result"]?["resolution"] == .string("expired"))
            #expect(result["escalated"]?.arrayValue?.compactMap { $0["to"]?.stringValue } == ["b", "c"])
            #expect(result["responders"] == .array([.string("cy")]))
        }
    }

    @Test("an alert answered before its step never escalates")
    func answeredFirst() async throws {
        try await Self.withServer { server in
            let steps = #""escalation":[{"after":0.6,"presenter":"oncall"}]"#
            let answered = try await server.create(#"{"title":"A","responders":["ana"],"# + steps + "}", as: Self.ci)
            let reply = try await server.send("POST", "/v1/alerts/\(answered)/response", body: #"{"buttonIndex":0}"#,
                                              as: Self.ana)
            #expect(reply.status == 200, "\(reply.text)")
            // A second alert with a later step: once it escalated, the first one's step time is long past.
            let later = try await server.create(#"{"title":"B","escalation":[{"after":0.9,"presenter":"oncall"}]}"#,
                                                as: Self.ci)
            let seen = try await Self.until("escalated", of: later, server)
            #expect(!seen.contains { $0["type"] == .string("escalated") && $0["alert"]?["id"] == .string(answered) })
            let shown = try await server.send("GET", "/v1/alerts/\(answered)", as: Self.root).json
            #expect(shown["presenter"] == .string("root"))
            #expect(shown["escalated"] == .array([]))
        }
    }

    @Test("votes cast before a step still count after it; the widened responders complete the quorum")
    func quorumAcrossAStep() async throws {
        try await Self.withServer { server in
            let body = #"{"title":"Ship?","buttons":["No","Yes"],"responders":["ana","cy"],"quorum":2,"#
                + #""escalation":[{"after":0.5,"presenter":"oncall","responders":["ben"]}]}"#
            let id = try await server.create(body, as: Self.ci)
            let vote = try await server.send("POST", "/v1/alerts/\(id)/response", body: #"{"buttonIndex":1}"#,
                                             as: Self.ana)
            #expect(vote.status == 202, "\(vote.text)")
            _ = try await Self.until("escalated", of: id, server)
            let deciding = try await server.send("POST", "/v1/alerts/\(id)/response", body: #"{"buttonIndex":1}"#,
                                                 as: Self.ben)
            #expect(deciding.status == 200, "\(deciding.text)")
            #expect(deciding.json["votes"]?.arrayValue?.compactMap { $0["responder"]?.stringValue } == ["ana", "ben"])
        }
    }

    @Test("bad steps are 422 naming the member, and nothing is created",
          arguments: [
              (#""escalation":{"after":1}"#, "/escalation"),
              (#""escalation":[{"presenter":"x"}]"#, "/escalation/0/after"),
              (#""escalation":[{"after":1}]"#, "/escalation/0/presenter"),
              (#""escalation":[{"after":0,"presenter":"x"}]"#, "/escalation/0/after"),
              (#""escalation":[{"after":"soon","presenter":"x"}]"#, "/escalation/0/after"),
              (#""escalation":[{"after":5,"presenter":"x"},{"after":5,"presenter":"y"}]"#, "/escalation/1/after"),
              (#""timeout":5,"escalation":[{"after":5,"presenter":"x"}]"#, "/escalation/0/after"),
              (#""escalation":[{"after":1,"presenter":"bad name"}]"#, "/escalation/0/presenter"),
              (#""escalation":[{"after":1,"presenter":"root"}]"#, "/escalation/0/presenter"),
              (#""escalation":[{"after":1,"presenter":"x","responders":["ana"]}]"#, "/escalation/0/responders/0"),
              (#""responders":["ana"],"escalation":[{"after":1,"presenter":"x","responders":["ana"]}]"#,
               "/escalation/0/responders/0"),
              (#""escalation":[{"after":1,"presenter":"x","when":2}]"#, "/escalation/0/when"),
          ])
    func refused(member: String, pointer: String) async throws {
        try await Self.withServer { server in
            let response = try await server.send("POST", "/v1/alerts", body: #"{"title":"t","# + member + "}",
                                                 as: Self.ci)
            #expect(response.status == 422, "\(response.text)")
            #expect(response.isProblem)
            let pointers = response.json["errors"]?.arrayValue?.compactMap { $0["pointer"]?.stringValue } ?? []
            #expect(pointers.contains(pointer), "\(response.text)")
            #expect(try await server.list(as: Self.root) == [])
        }
    }
}
