import AlertAPI
import AlertServer
import AlertdTestSupport
import Foundation
import HTTPTestSupport
import Testing

/// An AI agent's approval request in the dashboard, shaped as the MCP `approve` tool and the Claude Code hook make
/// it: `Allow <tool>?`, the tool's input as pretty-printed JSON with the session and directory under it, Deny
/// (cancel) and Allow, and an optional reason field. Against an alertd with tokens, so the Result names who decided.
@Suite("dashboard: an agent's approval request", .spawnsProcesses, .enabled(if: TmuxSession.tmux != nil, "needs tmux (apt-get install tmux)"))
struct DashboardApprovalTests {
    static let tokens = "agent:producer:approval-agent-000001,alice:responder:approval-alice-000001"

    /// The tool's input as the approval tools print it (2-space indent, sorted keys), then the hook's lines.
    static let bashInput = """
        {
          "command": "kubectl --context prod-eu-west-1 delete deployment payments-api --namespace payments \
        --grace-period 0 --force --wait=true",
          "description": "Delete the payments deployment",
          "options": {
            "dryRun": false,
            "timeout": 120
          }
        }

        Session: 3f2a9c1e-agent-session
        Directory: /home/dev/payments
        """

    /// The body of `POST /v1/alerts` for an approval of `tool` with `message`.
    static func approval(_ tool: String, _ message: String) throws -> String {
        let body: [String: Any] = [
            "title": "Allow \(tool)?", "message": message,
            "buttons": [["title": "Deny", "style": "cancel"], ["title": "Allow"]],
            "fields": [["placeholder": "Reason (optional)"]],
        ]
        return String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
    }

    /// An alertd with tokens and a dashboard on it as alice; `body` gets a sender (method, target, body: the
    /// status and JSON object, as the agent) and the session once the dashboard is connected.
    private func withDashboard(
        columns: Int = 120, rows: Int = 40,
        _ body: (_ send: (String, String, String?) async throws -> (Int, [String: Any]), TmuxSession) async throws
            -> Void
    ) async throws {
        try await TestAlertd.with({ $0.tokens = try! AccessTokens(parsing: Self.tokens, source: "test") }) { app in
            let send: (String, String, String?) async throws -> (Int, [String: Any]) = { method, target, body in
                let response = try await RawHTTP.exchange(RawHTTP.request(
                    method, target, headers: [("Authorization", "Bearer approval-agent-000001")],
                    body: body.map { Array($0.utf8) }), port: app.port)
                let json = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
                return (response.status, json ?? [:])
            }
            try await TmuxSession.withAlertctl(["--url", app.url, "dashboard"], columns: columns, rows: rows,
                                               environment: ["ALERTD_TOKEN": "approval-alice-000001"]) { session in
                try await session.waitFor("alertctl dashboard", "connected")
                try await body(send, session)
            }
        }
    }

    private func create(
        _ send: (String, String, String?) async throws -> (Int, [String: Any]), _ body: String
    ) async throws -> String {
        let (status, json) = try await send("POST", "/v1/alerts", body)
        #expect(status == 201)
        return try #require(json["id"] as? String)
    }

    /// Opens the pending approval titled `title` and types `reason` into its field, where the focus starts.
    private func open(_ title: String, typing reason: String, _ session: TmuxSession) async throws {
        try await session.waitFor(title)
        try await session.press("Enter")
        try await session.waitFor("[Reason (optional)", "Enter: Allow", "Esc: Deny")
        try await session.type(reason)
        try await session.waitFor("[" + reason)
    }

    @Test("the request shows the tool's input as written, wrapped and indented, with its session and directory")
    func rendersApproval() async throws {
        try await withDashboard { send, session in
            _ = try await create(send, try Self.approval("Bash", Self.bashInput))
            // The list line: the title and the input's first member, not its brace.
            let list = try await session.waitFor("Allow Bash?", #""command": "kubectl --context"#)
            #expect(!list.contains(#"{ "command""#))
            try await session.press("Enter")
            let screen = try await session.waitFor("[Reason (optional)", "[1 Deny]", "[2 Allow]")
            // Left-aligned inside the box, line breaks and indentation kept (the box's border, a space, the line).
            #expect(screen.contains("│ {"))
            #expect(screen.contains(#"│   "command": "kubectl --context prod-eu-west-1 delete deployment"#))
            #expect(screen.contains(#"│   "description": "Delete the payments deployment","#))
            #expect(screen.contains(#"│     "timeout": 120"#))
            #expect(screen.contains("│ Session: 3f2a9c1e-agent-session"))
            #expect(screen.contains("│ Directory: /home/dev/payments"))
            // The long command wraps at a space, its continuation lined up under the value, nothing cut.
            let lines = screen.components(separatedBy: "\n")
            let command = try #require(lines.firstIndex { $0.contains(#"│   "command": "kubectl"#) })
            let column = try #require(lines[command].range(of: #""kubectl"#)).lowerBound.utf16Offset(in: lines[command])
            let next = lines[command + 1]
            #expect(next.contains(#"--wait=true","#))
            let start = try #require(next.firstIndex { $0 != " " && $0 != "│" }).utf16Offset(in: next)
            #expect(start == column)
        }
    }

    @Test("a message taller than the box shows a mark, keeps the session and directory in view, and PgDn scrolls")
    func scrollsLongInput() async throws {
        let members = (1...60).map { #"  "line\#(String(format: "%02d", $0))": "value \#($0)""# }
        let input = "{\n" + members.joined(separator: ",\n") + "\n}\n\nSession: s-long\nDirectory: /srv/app"
        try await withDashboard(columns: 100, rows: 30) { send, session in
            _ = try await create(send, try Self.approval("Write", input))
            try await session.waitFor("Allow Write?")
            try await session.press("Enter")
            // Lines inside the box: its border, a space, the line as written.
            let first = try await session.waitFor(#"│   "line01": "value 1","#, "more lines", "PgUp/PgDn scroll",
                                                  "│ Session: s-long", "│ Directory: /srv/app")
            #expect(!first.contains(#"│   "line60""#))
            for _ in 0..<5 { try await session.press("PageDown") }
            let last = try await session.waitFor(#"│   "line60": "value 60""#, "above", "│ Session: s-long")
            #expect(!last.contains(#"│   "line01""#))
            try await session.press("PageUp")
            try await session.waitFor("more lines")
            // Typing still goes to the reason field.
            try await session.type("ok")
            try await session.waitFor("[ok ")
        }
    }

    @Test("deny with a reason: type it and press Esc; the Result is Deny with the reason, by the dashboard's token")
    func denyWithReason() async throws {
        try await withDashboard { send, session in
            let id = try await create(send, try Self.approval("Bash", Self.bashInput))
            try await open("Allow Bash?", typing: "not on prod, use staging", session)
            try await session.press("Escape")
            try await session.waitFor("→ Deny  answered by alice")
            let (status, result) = try await send("GET", "/v1/alerts/\(id)/response", nil)
            #expect(status == 200)
            #expect(result["buttonIndex"] as? Int == 0)
            #expect(result["buttonTitle"] as? String == "Deny")
            #expect(result["ok"] as? Bool == false)
            #expect(result["values"] as? [String] == ["not on prod, use staging"])
            #expect(result["responder"] as? String == "alice")
        }
    }

    @Test("deny by the cancel button's number and allow with Enter both carry the typed reason")
    func buttonsCarryReason() async throws {
        try await withDashboard { send, session in
            let denied = try await create(send, try Self.approval("Edit", "{\n  \"file_path\": \"/etc/hosts\"\n}"))
            try await open("Allow Edit?", typing: "read-only", session)
            // Tab leaves the field for the buttons, where 1 is Deny.
            try await session.press("Tab")
            try await session.press("1")
            try await session.waitFor("→ Deny  answered by alice")
            let (_, deny) = try await send("GET", "/v1/alerts/\(denied)/response", nil)
            #expect(deny["buttonIndex"] as? Int == 0)
            #expect(deny["values"] as? [String] == ["read-only"])

            let allowed = try await create(send, try Self.approval("Read", "{\n  \"file_path\": \"/etc/hosts\"\n}"))
            try await open("Allow Read?", typing: "fine", session)
            try await session.press("Enter")
            try await session.waitFor("→ Allow  answered by alice")
            let (_, allow) = try await send("GET", "/v1/alerts/\(allowed)/response", nil)
            #expect(allow["buttonIndex"] as? Int == 1)
            #expect(allow["buttonTitle"] as? String == "Allow")
            #expect(allow["values"] as? [String] == ["fine"])
            #expect(allow["responder"] as? String == "alice")
        }
    }
}
