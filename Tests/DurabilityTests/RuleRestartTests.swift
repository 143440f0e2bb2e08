import Foundation
import HTTPTestSupport
import JSON
import Testing

/// Rules are in the journal: a restart with the same data dir keeps them, and they go on answering.
@Suite("Rules across a restart", .spawnsProcesses)
struct RuleRestartTests {
    static let tokens = "ci:producer:ci-token-0123456789abcdef,root:admin:root-token-0123456789abcd"

    static func auth(_ token: String) -> [(String, String)] { [("Authorization", "Bearer \(token)")] }

    @Test("a rule made before a restart is listed after it and answers a new matching alert; a removed one stays gone")
    func rulesSurviveARestart() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let data = scratch.appending("data")
        let environment = ["ALERTD_TOKENS": Self.tokens]
        let admin = Self.auth("root-token-0123456789abcd"), producer = Self.auth("ci-token-0123456789abcdef")
        let first = AlertdProcess(dataDirectory: data, arguments: ["--access-log", "off"], environment: environment)
        try await first.start()
        let pending = try await first.send("POST", "/v1/alerts", body: #"{"title":"Rotate logs?","buttons":["No","Yes"]}"#,
                                           headers: producer)
        let pendingID = try #require(pending.json["id"]?.stringValue)
        let made = try await first.send("POST", "/v1/rules", body: #"{"name":"logs","match":{"title":"Rotate *"},"#
            + #""button":"Yes"}"#, headers: admin)
        #expect(made.status == 201, "\(made)")
        #expect(made.json["answered"] == .array([.string(pendingID)]))
        let gone = try await first.send("POST", "/v1/rules", body: #"{"name":"gone","match":{"tag":9},"#
            + #""button":"OK"}"#, headers: admin)
        #expect(gone.status == 201, "\(gone)")
        #expect(try await first.send("DELETE", "/v1/rules/gone", headers: admin).status == 200)
        await first.stop()

        let second = AlertdProcess(dataDirectory: data, arguments: ["--access-log", "off"], environment: environment)
        try await second.start()
        let answered = try await second.send("GET", "/v1/alerts/\(pendingID)", headers: admin)
        #expect(answered.json["result"]?["responder"]?.stringValue == "rule:logs", "\(answered)")
        let rules = try await second.send("GET", "/v1/rules", headers: admin)
        #expect(rules.json["rules"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["logs"], "\(rules)")
        #expect(rules.json["rules"]?.arrayValue?.first?["createdBy"]?.stringValue == "root")
        let created = try await second.send("POST", "/v1/alerts", body: #"{"title":"Rotate db logs?","#
            + #""buttons":["No","Yes"]}"#, headers: producer)
        #expect(created.json["result"]?["responder"]?.stringValue == "rule:logs", "\(created)")
        let untouched = try await second.send("POST", "/v1/alerts", body: #"{"title":"x","tag":9}"#, headers: producer)
        #expect(untouched.json["state"]?.stringValue == "pending")
        await second.stop()
    }
}
