import AlertAPI
import AlertServer
import AlertdTestSupport
import Foundation
import HTTPTestSupport
import Testing

/// The dashboard's log against an alertd with tokens: every resolution it sees, with who made it.
@Suite("dashboard: who resolved what", .spawnsProcesses, .enabled(if: TmuxSession.tmux != nil, "needs tmux (apt-get install tmux)"))
struct DashboardResponderTests {
    static let tokens = "ci:producer:dashboard-producer-0001,alice:responder:dashboard-alice-00001,"
        + "bob:responder:dashboard-bob-0000001"

    @Test("answers given here, answers given elsewhere and dismissals are logged with the token's name")
    func logNamesResponders() async throws {
        try await TestAlertd.with({ $0.tokens = try! AccessTokens(parsing: Self.tokens, source: "test") }) { app in
            func send(_ method: String, _ target: String, _ body: String? = nil, as token: String) async throws
                -> WireResponse
            {
                try await RawHTTP.exchange(RawHTTP.request(
                    method, target, headers: [("Authorization", "Bearer \(token)")], body: body.map { Array($0.utf8) }),
                    port: app.port)
            }
            func create(_ title: String) async throws -> String {
                let response = try await send("POST", "/v1/alerts", #"{"title":"\#(title)","buttons":["No","Yes"]}"#,
                                              as: "dashboard-producer-0001")
                let json = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
                return try #require(json?["id"] as? String)
            }
            try await TmuxSession.withAlertctl(["--url", app.url, "dashboard"],
                                               environment: ["ALERTD_TOKEN": "dashboard-alice-00001"]) { session in
                try await session.waitFor("alertctl dashboard", "connected")
                let mine = try await create("Answered here")
                let theirs = try await create("Answered by Bob")
                let withdrawn = try await create("Withdrawn")
                try await session.waitFor("Answered here", "Answered by Bob", "Withdrawn")
                try await session.press("Enter")
                try await session.waitFor("[1 No]", "[2 Yes]")
                try await session.press("Enter")
                try await session.waitFor("→ Yes  answered by alice")
                #expect(try await send("POST", "/v1/alerts/\(theirs)/response", #"{"button":"Yes"}"#,
                                       as: "dashboard-bob-0000001").status == 200)
                try await session.waitFor("Answered by Bob  → Yes  answered by bob")
                #expect(try await send("DELETE", "/v1/alerts/\(withdrawn)", as: "dashboard-producer-0001").status
                        == 200)
                try await session.waitFor("Withdrawn  → No  dismissed by ci")
                _ = mine
            }
        }
    }
}
