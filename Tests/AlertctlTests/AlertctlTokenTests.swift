import AlertAPI
import AlertServer
import AlertdTestSupport
import Foundation
import Testing

/// alertctl against an alertd with tokens: the token comes from the environment only.
@Suite("alertctl with tokens", .spawnsProcesses)
struct AlertctlTokenTests {
    static let tokens = "ci:producer:alertctl-producer-00001,alice:responder:alertctl-responder-0001"

    @Test("ALERTD_TOKEN or ALERTD_TOKEN_FILE authenticates; without one alertd's 401 is exit 4 with its reason")
    func token() async throws {
        try await TestAlertd.with({ $0.tokens = try! AccessTokens(parsing: Self.tokens, source: "test") }) { app in
            let url = ["--url", app.url]
            let refused = try await AlertctlProcess.run(url + ["list"])
            #expect(refused.status == 4, "\(refused)")
            #expect(refused.stderr.contains("Authorization: Bearer"), "\(refused)")
            #expect(refused.stderr.contains("Set ALERTD_TOKEN to your token (or ALERTD_TOKEN_FILE"), "\(refused)")

            let created = try await AlertctlProcess.run(url + ["alert", "Deploy?", "--button", "No", "--button", "Yes"],
                                                        environment: ["ALERTD_TOKEN": "alertctl-producer-00001"])
            #expect(created.status == 0, "\(created)")

            let file = FileManager.default.temporaryDirectory.appendingPathComponent("alertctl-token-\(UUID())")
            try "alertctl-responder-0001\n".write(to: file, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: file) }
            let listed = try await AlertctlProcess.run(url + ["list", "--json"],
                                                       environment: ["ALERTD_TOKEN_FILE": file.path])
            #expect(listed.status == 0, "\(listed)")
            #expect(listed.stdout.contains("Deploy?"))

            let forbidden = try await AlertctlProcess.run(url + ["alert", "Nope"],
                                                          environment: ["ALERTD_TOKEN_FILE": file.path])
            #expect(forbidden.status == 4, "\(forbidden)")
            #expect(forbidden.stderr.contains("the responder role may not create alerts"), "\(forbidden)")
        }
    }
}
