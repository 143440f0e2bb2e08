import AlertAPI
import AlertServer
import AlertdTestSupport
import Foundation
import HTTPTestSupport
import Testing

/// The dashboard against alerts that name who may answer them: the ones it may not answer are marked read-only,
/// and no key answers them.
@Suite("dashboard: who may answer", .spawnsProcesses, .enabled(if: TmuxSession.tmux != nil, "needs tmux (apt-get install tmux)"))
struct DashboardPolicyTests {
    static let tokens = "ci:producer:dashboard-producer-0001,alice:responder:dashboard-alice-00001:ops,"
        + "bob:responder:dashboard-bob-0000001"

    @Test("an alert for someone else is marked read-only and Enter does not open it; one for my group opens")
    func readOnlyMark() async throws {
        try await TestAlertd.with({ $0.tokens = try! AccessTokens(parsing: Self.tokens, source: "test") }) { app in
            func create(_ body: String) async throws -> Int {
                try await RawHTTP.exchange(RawHTTP.request(
                    "POST", "/v1/alerts", headers: [("Authorization", "Bearer dashboard-producer-0001")],
                    body: Array(body.utf8)), port: app.port).status
            }
            #expect(try await create(#"{"title":"For Bob only","buttons":["No","Yes"],"responders":["bob"]}"#) == 201)
            #expect(try await create(#"{"title":"For ops","buttons":["No","Yes"],"groups":["ops"]}"#) == 201)
            try await TmuxSession.withAlertctl(["--url", app.url, "dashboard"],
                                               environment: ["ALERTD_TOKEN": "dashboard-alice-00001"]) { session in
                let screen = try await session.waitFor("For Bob only", "For ops", "read-only")
                let bobLine = screen.components(separatedBy: "\n").first { $0.contains("For Bob only") } ?? ""
                let opsLine = screen.components(separatedBy: "\n").first { $0.contains("For ops") } ?? ""
                #expect(bobLine.contains("read-only"), "\(screen)")
                #expect(!opsLine.contains("read-only"), "\(screen)")
                // The list is oldest first: the selection starts on "For Bob only".
                try await session.press("Enter")
                try await session.waitFor("you are not among them")
                try await session.press("j")
                try await session.press("Enter")
                try await session.waitFor("[1 No]", "[2 Yes]")
                try await session.press("Enter")
                try await session.waitFor("→ Yes  answered by alice")
            }
        }
    }
}
