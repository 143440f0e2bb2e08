import Foundation
import HTTPTestSupport
import Testing

/// `alertctl hook claude-code` and `alertctl mcp` as processes against a live alertd (the MCP Python SDK drives them
/// further in scripts/mcp-test.sh).
@Suite("alertctl hook claude-code and alertctl mcp", .spawnsProcesses)
struct AlertctlAgentTests {
    static let hookInput = #"""
        {"session_id":"s-42","cwd":"/home/me/project","permission_mode":"default","hook_event_name":"PreToolUse",
         "tool_name":"Bash","tool_input":{"command":"make deploy"},"tool_use_id":"toolu_swift_1"}
        """#

    /// A file holding `text`, for a child's standard input.
    func inputFile(_ text: String) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("alertctl-agent-\(UUID())")
        try Data(text.utf8).write(to: file)
        return file.path
    }

    func expected(_ decision: String, _ reason: String) -> String {
        #"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"\#(decision)","permissionDecisionReason":"\#(reason)"}}"#
            + "\n"
    }

    @Test("the hook asks with the approval alert and prints allow when Allow is pressed")
    func hookAllows() async throws {
        try await AlertctlServer.with { server in
            let hook = try AlertctlProcess(
                ["--url", server.url, "hook", "claude-code"], standardInput: try inputFile(Self.hookInput)
            )
            let id = try await server.pendingID(of: hook)
            let alert = try await server.alert(id)
            #expect(alert["title"] as? String == "Allow Bash?")
            #expect(alert["message"] as? String
                == "{\n  \"command\": \"make deploy\"\n}\n\nSession: s-42\nDirectory: /home/me/project")
            #expect((alert["buttons"] as? [[String: Any]])?.compactMap { $0["title"] as? String } == ["Deny", "Allow"])
            #expect(try await server.answer(id, #"{"button":"Allow","values":[""]}"#) == 200)
            let output = try await hook.finish()
            #expect(output.status == 0)
            #expect(output.stdout == expected("allow", "Allowed by an unnamed responder"))
        }
    }

    @Test("a tool rule answers the hook's approval at once: allow, by rule:<name>, and no alert is left pending")
    func hookAnsweredByRule() async throws {
        try await AlertctlServer.with { server in
            let (status, rule) = try await server.request("POST", "/v1/rules", body: #"{"name":"deploys","#
                + #""match":{"tool":"Bash","toolInput":{"command":"make *"}},"button":"Allow"}"#)
            #expect(status == 201, "\(rule)")
            let output = try await AlertctlProcess(
                ["--url", server.url, "hook", "claude-code"], standardInput: try inputFile(Self.hookInput)
            ).finish()
            #expect(output.stdout == expected("allow", "Allowed by rule:deploys"))
            let (_, list) = try await server.request("GET", "/v1/alerts?state=pending")
            #expect((list["alerts"] as? [Any])?.isEmpty == true, "nobody was asked: \(list)")
            let (_, all) = try await server.request("GET", "/v1/alerts?state=resolved")
            let alert = (all["alerts"] as? [[String: Any]])?.first
            #expect(alert?["tool"] as? String == "Bash")
            #expect((alert?["toolInput"] as? [String: Any])?["command"] as? String == "make deploy")
        }
    }

    @Test("the hook prints deny with the reason typed")
    func hookDenies() async throws {
        try await AlertctlServer.with { server in
            let hook = try AlertctlProcess(
                ["--url", server.url, "hook", "claude-code"], standardInput: try inputFile(Self.hookInput)
            )
            let id = try await server.pendingID(of: hook)
            try await server.answer(id, #"{"button":"Deny","values":["use staging"]}"#)
            let output = try await hook.finish()
            #expect(output.stdout == expected("deny", "Denied by an unnamed responder: use staging"))
        }
    }

    @Test("an unreachable alertd or an unreadable input prints ask, exit 0: the hook never allows on its own")
    func hookAsks() async throws {
        let unreachable = try await AlertctlProcess(
            ["--url", "http://127.0.0.1:1", "hook", "claude-code"], standardInput: try inputFile(Self.hookInput)
        ).finish()
        #expect(unreachable.status == 0)
        #expect(unreachable.stdout.hasPrefix(#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","#))
        let garbage = try await AlertctlProcess(
            ["--url", "http://127.0.0.1:1", "hook", "claude-code"], standardInput: try inputFile("not json")
        ).finish()
        #expect(garbage.stdout == expected("ask", "alertctl hook: the hook input is not a JSON object"))
    }

    @Test("alertctl hook with another agent, or mcp with a bad interval, is a usage error")
    func usage() async throws {
        #expect(try await AlertctlProcess.run(["hook", "codex"]).status == 2)
        #expect(try await AlertctlProcess.run(["hook"]).status == 2)
        #expect(try await AlertctlProcess.run(["mcp", "--progress-interval", "0s"]).status == 2)
        #expect(try await AlertctlProcess.run(["mcp", "extra"]).status == 2)
    }

    @Test("alertctl mcp answers each line on stdout, logs on stderr, and exits 0 at the end of its input")
    func mcpLines() async throws {
        let input = """
            {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}
            {"jsonrpc":"2.0","method":"notifications/initialized"}
            {"jsonrpc":"2.0","id":2,"method":"ping"}

            """
        let output = try await AlertctlProcess(
            ["--url", "http://127.0.0.1:1", "mcp"], standardInput: try inputFile(input)
        ).finish()
        #expect(output.status == 0)
        // Messages are handled concurrently: the replies may come in any order.
        #expect(output.lines.count == 2)
        #expect(output.lines.contains { $0.contains(#""id":1,"result":{"protocolVersion":"2025-06-18""#) })
        #expect(output.lines.contains(#"{"jsonrpc":"2.0","id":2,"result":{}}"#))
        #expect(output.stderr.contains("alertctl mcp: serving MCP"))
    }
}
