import Foundation
import HTTPTestSupport
import JSON
import Testing

/// An alert's escalation is in the journal: a step whose time came while alertd was down fires at the restart, once;
/// a step taken is kept; the events before a step still show the alert where it was then.
@Suite("Escalation across restarts", .spawnsProcesses)
struct EscalationRestartTests {
    static let tokens = "ci:producer:ci-token-0123456789abcdef,ana:responder:ana-token-0123456789abcd,"
        + "ben:responder:ben-token-0123456789abcd"
    static let ana = "ana-token-0123456789abcd"
    static let ben = "ben-token-0123456789abcd"

    static func auth(_ token: String) -> [(String, String)] { [("Authorization", "Bearer \(token)")] }

    /// The events since 0 once one of them is of `type` (long-polls from the last one seen, 30 s at most).
    static func events(through type: String, _ alertd: AlertdProcess) async throws -> [JSONValue] {
        var seen: [JSONValue] = []
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let cursor = seen.last?["id"]?.int64Value ?? 0
            let response = try await alertd.send("GET", "/v1/events?since=\(cursor)&wait=20", headers: auth(ana))
            seen += response.json.arrayValue ?? []
            if seen.contains(where: { $0["type"]?.stringValue == type }) { return seen }
        }
        Issue.record("no \(type) event within 30 s: \(seen)")
        return seen
    }

    @Test("a step due while alertd was down fires once at restart; the next restart keeps it; events show each state")
    func stepAcrossRestarts() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let data = scratch.appending("data")
        let environment = ["ALERTD_TOKENS": Self.tokens]
        func alertd() -> AlertdProcess {
            AlertdProcess(dataDirectory: data, arguments: ["--access-log", "off"], environment: environment)
        }
        let first = alertd()
        try await first.start()
        let created = try await first.send("POST", "/v1/alerts", body: #"{"title":"Restart db?","buttons":["No","Yes"],"#
            + #""presenter":"team","responders":["ana"],"escalation":[{"after":1,"presenter":"oncall","#
            + #""responders":["ben"]}]}"#, headers: Self.auth("ci-token-0123456789abcdef"))
        try #require(created.status == 201, "\(created)")
        let id = try #require(created.json["id"]?.stringValue)
        // Both steps and the timeout of this one pass while alertd is down: at the start the steps fire in order,
        // then it expires.
        let chained = try await first.send("POST", "/v1/alerts", body: #"{"title":"Disk?","presenter":"x","#
            + #""timeout":1.2,"escalation":[{"after":0.5,"presenter":"y"},{"after":1,"presenter":"z"}]}"#,
            headers: Self.auth("ci-token-0123456789abcdef"))
        try #require(chained.status == 201, "\(chained)")
        let chainedID = try #require(chained.json["id"]?.stringValue)
        await first.stop()
        // Wait out the steps' and the timeout's wall-clock time (1.2 s from creation) before the restart.
        let due = Date().addingTimeInterval(1.3)
        while Date() < due { try await Task.sleep(for: .milliseconds(50)) }

        let second = alertd()
        try await second.start()
        let events = try await Self.events(through: "expired", second)
        let escalated = events.filter { $0["alert"]?["id"]?.stringValue == id }
        #expect(escalated.compactMap { $0["type"]?.stringValue } == ["created", "escalated"], "\(events)")
        let chain = events.filter { $0["alert"]?["id"]?.stringValue == chainedID }
        #expect(chain.compactMap { $0["type"]?.stringValue } == ["created", "escalated", "escalated", "expired"])
        #expect(chain.compactMap { $0["alert"]?["presenter"]?.stringValue } == ["x", "y", "z", "z"], "\(chain)")
        await second.stop()

        let third = alertd()
        try await third.start()
        let shown = try await third.send("GET", "/v1/alerts/\(id)", headers: Self.auth(Self.ana))
        #expect(shown.json["presenter"]?.stringValue == "oncall", "\(shown)")
        #expect(shown.json["escalated"]?.arrayValue?.count == 1, "\(shown)")
        #expect(shown.json["responders"] == .array([.string("ana"), .string("ben")]))
        let history = try await third.send("GET", "/v1/events?since=0&wait=0", headers: Self.auth(Self.ana))
        let mine = (history.json.arrayValue ?? []).filter { $0["alert"]?["id"]?.stringValue == id }
        #expect(mine.compactMap { $0["type"]?.stringValue } == ["created", "escalated"], "\(history)")
        // The created event shows the alert as it was created, before the step.
        #expect(mine.first?["alert"]?["presenter"]?.stringValue == "team", "\(history)")
        #expect(mine.first?["alert"]?["responders"] == .array([.string("ana")]), "\(history)")
        #expect(mine.first?["alert"]?["escalated"] == .array([]), "\(history)")
        let onlyTeam = try await third.send("GET", "/v1/events?since=0&wait=0&presenter=team",
                                            headers: Self.auth(Self.ana))
        #expect(onlyTeam.json.arrayValue?.count == 2, "the team saw it created and leave: \(onlyTeam)")
        let answered = try await third.send("POST", "/v1/alerts/\(id)/response", body: #"{"buttonIndex":1}"#,
                                            headers: Self.auth(Self.ben))
        #expect(answered.status == 200, "\(answered)")
        await third.stop()
    }
}
