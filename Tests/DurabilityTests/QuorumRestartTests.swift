import Foundation
import HTTPTestSupport
import JSON
import Testing

/// A quorum alert's votes are in the journal: a restart keeps them, and the quorum goes on counting them.
@Suite("Quorum votes across a restart", .spawnsProcesses)
struct QuorumRestartTests {
    static let tokens = "ci:producer:ci-token-0123456789abcdef,ana:responder:ana-token-0123456789abcd,"
        + "ben:responder:ben-token-0123456789abcd,cy:responder:cyy-token-0123456789abcd"

    static func auth(_ token: String) -> [(String, String)] { [("Authorization", "Bearer \(token)")] }

    @Test("a vote acknowledged before a restart is there after it; a double vote is still 409; the next vote resolves")
    func votesSurviveARestart() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let data = scratch.appending("data")
        let environment = ["ALERTD_TOKENS": Self.tokens]
        let first = AlertdProcess(dataDirectory: data, arguments: ["--access-log", "off"], environment: environment)
        try await first.start()
        let created = try await first.send("POST", "/v1/alerts", body: #"{"title":"Ship?","buttons":["No","Yes"],"#
            + #""quorum":2}"#, headers: Self.auth("ci-token-0123456789abcdef"))
        try #require(created.status == 201, "\(created)")
        let id = try #require(created.json["id"]?.stringValue)
        let vote = try await first.send("POST", "/v1/alerts/\(id)/response", body: #"{"buttonIndex":1}"#,
                                        headers: Self.auth("ana-token-0123456789abcd"))
        #expect(vote.status == 202, "\(vote)")
        await first.stop()

        let second = AlertdProcess(dataDirectory: data, arguments: ["--access-log", "off"], environment: environment)
        try await second.start()
        let shown = try await second.send("GET", "/v1/alerts/\(id)", headers: Self.auth("ana-token-0123456789abcd"))
        #expect(shown.json["state"]?.stringValue == "pending")
        #expect(shown.json["quorum"]?.int64Value == 2)
        #expect(shown.json["votes"]?.arrayValue?.compactMap { $0["responder"]?.stringValue } == ["ana"])
        let again = try await second.send("POST", "/v1/alerts/\(id)/response", body: #"{"buttonIndex":1}"#,
                                          headers: Self.auth("ana-token-0123456789abcd"))
        #expect(again.status == 409, "\(again)")
        let events = try await second.send("GET", "/v1/events?since=0&wait=0",
                                           headers: Self.auth("ana-token-0123456789abcd"))
        #expect(events.json.arrayValue?.compactMap { $0["type"]?.stringValue } == ["created", "voted"], "\(events)")
        let deciding = try await second.send("POST", "/v1/alerts/\(id)/response", body: #"{"buttonIndex":1}"#,
                                             headers: Self.auth("ben-token-0123456789abcd"))
        #expect(deciding.status == 200, "\(deciding)")
        #expect(deciding.json["votes"]?.arrayValue?.compactMap { $0["responder"]?.stringValue } == ["ana", "ben"])
        await second.stop()

        let third = AlertdProcess(dataDirectory: data, arguments: ["--access-log", "off"], environment: environment)
        try await third.start()
        let result = try await third.send("GET", "/v1/alerts/\(id)", headers: Self.auth("ana-token-0123456789abcd"))
        #expect(result.json["result"]?["votes"]?.arrayValue?.count == 2, "\(result)")
        #expect(result.json["result"]?["responder"]?.stringValue == "ben")
        #expect(result.json["votes"]?.arrayValue?.count == 2, "the alert's votes include the deciding one")
        // The history shows each event's alert as it was then, as before the restarts: no later vote, no later Result.
        let history = try await third.send("GET", "/v1/events?since=0&wait=0",
                                           headers: Self.auth("ana-token-0123456789abcd"))
        let snapshots = history.json.arrayValue ?? []
        #expect(snapshots.map { $0["alert"]?["votes"]?.arrayValue?.count } == [0, 1, 2], "\(history)")
        #expect(snapshots.map { $0["alert"]?["state"]?.stringValue } == ["pending", "pending", "resolved"], "\(history)")
        await third.stop()
    }
}
