import AlertAPI
import AlertServer
import AlertdTestSupport
import Foundation
import HTTPTestSupport
import Testing

/// The dashboard's marks and rules: Space marks, `a` answers every marked alert with one button (never a read-only
/// one), and Ctrl-A ("always answer like this", admins only) answers the open alert and makes a rule.
@Suite("dashboard: marks and rules", .spawnsProcesses, .enabled(if: TmuxSession.tmux != nil, "needs tmux (apt-get install tmux)"))
struct DashboardBatchTests {
    static let tokens = "ci:producer:dashboard-batch-producer1,alice:responder:dashboard-batch-alice-001:ops,"
        + "bob:responder:dashboard-batch-bob-00001,root:admin:dashboard-batch-admin-001"
    static let producer = "dashboard-batch-producer1"
    static let alice = "dashboard-batch-alice-001"
    static let bob = "dashboard-batch-bob-00001"
    static let admin = "dashboard-batch-admin-001"

    /// Runs `body` against an alertd with `tokens`.
    private func withServer(_ body: (AlertdApp) async throws -> Void) async throws {
        try await TestAlertd.with({ $0.tokens = try! AccessTokens(parsing: Self.tokens, source: "test") }) { app in
            try await body(app)
        }
    }

    /// Sends a request with `token`; returns the status and the body as a JSON object (empty when it is not one).
    private func request(
        _ app: AlertdApp, _ method: String, _ target: String, token: String, body: String? = nil
    ) async throws -> (Int, [String: Any]) {
        let response = try await RawHTTP.exchange(RawHTTP.request(
            method, target, headers: [("Authorization", "Bearer \(token)")], body: body.map { Array($0.utf8) }),
            port: app.port)
        return (response.status, (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:])
    }

    /// Creates an alert as the producer; returns its id.
    private func create(_ app: AlertdApp, _ body: String) async throws -> String {
        let (status, json) = try await request(app, "POST", "/v1/alerts", token: Self.producer, body: body)
        #expect(status == 201, "\(json)")
        return try #require(json["id"] as? String)
    }

    /// The alert's state and result as the admin reads them.
    private func outcome(_ app: AlertdApp, _ id: String) async throws -> (state: String?, result: [String: Any]?) {
        let (_, json) = try await request(app, "GET", "/v1/alerts/\(id)", token: Self.admin)
        return (json["state"] as? String, json["result"] as? [String: Any])
    }

    @Test("three marked alerts are answered with one key; one resolved by bob meanwhile is reported, not blocking")
    func batchAnswer() async throws {
        try await withServer { app in
            let web = try await create(app, #"{"title":"Restart web","buttons":["No","Yes"]}"#)
            let db = try await create(app, #"{"title":"Restart db","buttons":["No","Yes"]}"#)
            let cache = try await create(app, #"{"title":"Restart cache","buttons":["No","Yes"]}"#)
            try await TmuxSession.withAlertctl(["--url", app.url, "dashboard"],
                                               environment: ["ALERTD_TOKEN": Self.alice]) { session in
                try await session.waitFor("Restart web", "Restart db", "Restart cache", "connected")
                try await session.press("Space")
                try await session.waitFor("1 marked", "a answer marked")
                try await session.press("j", "Space", "j", "Space")
                try await session.waitFor("3 marked")
                try await session.press("a")
                try await session.waitFor("answer the 3 marked with: [1 No] [2 Yes]")
                // Bob answers one of them before alice chooses the button.
                let (status, _) = try await request(app, "POST", "/v1/alerts/\(db)/response", token: Self.bob,
                                                    body: #"{"button":"No"}"#)
                #expect(status == 200)
                // The dashboard logs bob's answer while the prompt is up; the batch still sends all three.
                try await session.waitFor("answered by bob", "answer the 3 marked with")
                try await session.press("2")
                let screen = try await session.waitFor("answered 2 with Yes", "Restart db: already answered by bob")
                #expect(!screen.contains("marked"), "\(screen)")
                // One line per alert in the log: bob's answer is not logged a second time by the batch's outcome.
                #expect(screen.components(separatedBy: "Restart db").count - 1 == 2, "\(screen)")
            }
            for id in [web, cache] {
                let (state, result) = try await outcome(app, id)
                #expect(state == "resolved")
                #expect(result?["responder"] as? String == "alice" && result?["buttonIndex"] as? Int == 1,
                        "\(String(describing: result))")
            }
            let (_, bobs) = try await outcome(app, db)
            #expect(bobs?["responder"] as? String == "bob" && bobs?["buttonIndex"] as? Int == 0,
                    "\(String(describing: bobs))")
        }
    }

    @Test("an alert for someone else shows read-only, Space does not mark it, and the batch answer leaves it pending")
    func readOnlyNeverMarked() async throws {
        try await withServer { app in
            let bobs = try await create(app, #"{"title":"For Bob only","buttons":["No","Yes"],"responders":["bob"]}"#)
            let ops = try await create(app, #"{"title":"For ops","buttons":["No","Yes"],"groups":["ops"]}"#)
            let mine = try await create(app, #"{"title":"For anyone","buttons":["No","Yes"]}"#)
            try await TmuxSession.withAlertctl(["--url", app.url, "dashboard"],
                                               environment: ["ALERTD_TOKEN": Self.alice]) { session in
                let screen = try await session.waitFor("For Bob only", "For ops", "For anyone", "read-only")
                let bobLine = screen.components(separatedBy: "\n").first { $0.contains("For Bob only") } ?? ""
                #expect(bobLine.contains("read-only"), "\(screen)")
                // The selection starts on the oldest, Bob's.
                try await session.press("Space")
                let refused = try await session.waitFor("cannot be marked")
                #expect(!refused.contains("marked \u{00B7}") && !refused.contains("1 marked"), "\(refused)")
                try await session.press("j", "Space", "j", "Space")
                try await session.waitFor("2 marked")
                try await session.press("a")
                try await session.waitFor("answer the 2 marked with: [1 No] [2 Yes]")
                try await session.press("2")
                let after = try await session.waitFor("answered 2 with Yes", "1 pending")
                let stillThere = after.components(separatedBy: "\n").first { $0.contains("For Bob only") } ?? ""
                #expect(stillThere.contains("read-only"), "\(after)")
            }
            #expect(try await outcome(app, bobs).state == "pending")
            for id in [ops, mine] {
                #expect(try await outcome(app, id).result?["responder"] as? String == "alice")
            }
        }
    }

    @Test("Ctrl-A as admin shows the rule, y answers the alert and makes it; a new alert like it is answered at once")
    func alwaysAnswerLikeThis() async throws {
        try await withServer { app in
            let first = try await create(app, #"{"title":"Rotate logs?","presenter":"ops","buttons":["No","Yes"]}"#)
            var ruleName = ""
            try await TmuxSession.withAlertctl(["--url", app.url, "dashboard"],
                                               environment: ["ALERTD_TOKEN": Self.admin]) { session in
                try await session.waitFor("Rotate logs?", "connected")
                try await session.press("Enter")
                try await session.waitFor("[1 No]", "[2 Yes]", "Ctrl-A always")
                try await session.press("C-a")
                let proposal = try await session.waitFor("Always answer like this?", "presenter = ops",
                                                         "title = Rotate logs?", "y: answer and make the rule")
                let line = proposal.components(separatedBy: "\n").first { $0.contains("always-rotate-logs") } ?? ""
                ruleName = try #require(line.split(separator: " ").first { $0.hasPrefix("always-rotate-logs") })
                    .trimmingCharacters(in: .punctuationCharacters.subtracting(CharacterSet(charactersIn: "-")))
                try await session.press("y")
                try await session.waitFor("rule \(ruleName) made: presenter=ops title=\"Rotate logs?\" → Yes from now on",
                                          "Rotate logs?  → Yes  answered by root")
            }
            let (state, result) = try await outcome(app, first)
            #expect(state == "resolved")
            #expect(result?["responder"] as? String == "root" && result?["buttonTitle"] as? String == "Yes",
                    "\(String(describing: result))")
            let (status, rules) = try await request(app, "GET", "/v1/rules", token: Self.admin)
            #expect(status == 200)
            let rule = (rules["rules"] as? [[String: Any]])?.first { $0["name"] as? String == ruleName }
            #expect(rule?["button"] as? String == "Yes", "\(rules)")
            #expect(rule?["match"] as? [String: String] == ["presenter": "ops", "title": "Rotate logs?"], "\(rules)")
            let next = try await create(app, #"{"title":"Rotate logs?","presenter":"ops","buttons":["No","Yes"]}"#)
            let (nextState, nextResult) = try await outcome(app, next)
            #expect(nextState == "resolved")
            #expect(nextResult?["responder"] as? String == "rule:\(ruleName)", "\(String(describing: nextResult))")
        }
    }

    @Test("a responder's dashboard offers no Ctrl-A, and Ctrl-A there says only an admin may make rules")
    func noRulesForResponders() async throws {
        try await withServer { app in
            let id = try await create(app, #"{"title":"Rotate logs?","presenter":"ops","buttons":["No","Yes"]}"#)
            try await TmuxSession.withAlertctl(["--url", app.url, "dashboard"],
                                               environment: ["ALERTD_TOKEN": Self.alice]) { session in
                try await session.waitFor("Rotate logs?", "connected")
                try await session.press("Enter")
                let open = try await session.waitFor("[1 No]", "[2 Yes]", "q back")
                #expect(!open.contains("Ctrl-A"), "\(open)")
                try await session.press("C-a")
                let refused = try await session.waitFor("only an admin token may make rules")
                #expect(!refused.contains("Always answer like this?"), "\(refused)")
            }
            #expect(try await outcome(app, id).state == "pending")
            let (_, rules) = try await request(app, "GET", "/v1/rules", token: Self.admin)
            #expect((rules["rules"] as? [Any])?.isEmpty == true, "\(rules)")
        }
    }
}
