import AlertClient
import AlertMCP
import CommandLineText
import Foundation
import JSON

/// `alertctl hook claude-code`: a Claude Code `PreToolUse` hook that asks a person through alertd whether the tool
/// call may run. It never allows on its own: no answer in time, an unreachable alertd or a bad input give `ask`, so
/// Claude Code's own prompt takes over.
struct HookCommand: Subcommand {
    static let name = "hook"
    static let summary = "A Claude Code PreToolUse hook that asks a person through alertd whether a tool may run."
    static let usage = "alertctl hook claude-code [--timeout DURATION]"
    static let discussion = """
        Reads the hook's JSON on standard input (tool_name, tool_input, tool_use_id, session_id, cwd), creates
        the approval alert the approve tool of 'alertctl mcp' makes (with the session and directory below the
        input; tool_use_id is its idempotency key), waits for the answer and prints one line of JSON:
        {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"|"deny"|"ask",
        "permissionDecisionReason":"…"}}. Allow and Deny come only from a person; an unreachable alertd, no
        answer within --timeout (the alert then expires) or an unreadable input print "ask". Exit status 0.
        """
    static let options: [CommandLineOption] = [
        .option("--timeout", value: "DURATION",
                help: "How long to wait for an answer before 'ask' (Claude Code stops a hook at 600s)", default: "9m"),
    ]

    let timeout: Double

    init(_ arguments: ParsedCommandLine) throws(UsageError) {
        let agent = try arguments.positionals("AGENT")[0]
        guard agent == "claude-code" else {
            throw UsageError("unknown agent '\(agent)'; the hook speaks for claude-code")
        }
        timeout = try arguments.seconds("--timeout") ?? 540
    }

    func run(_ context: CommandContext) async -> ExitCode {
        let input = FileHandle.standardInput.readDataToEndOfFile()
        let (decision, reason) = await decide(input: Array(input), backend: ClientBackend(context: context))
        Console.json(Self.output(decision: decision, reason: reason))
        return .ok
    }

    /// The decision (`allow`, `deny` or `ask`) and its reason for the hook input `bytes`.
    func decide(input bytes: [UInt8], backend: any AlertBackend) async -> (String, String) {
        guard case .object(let hook)? = try? JSONParser.parse(bytes) else {
            return ("ask", "alertctl hook: the hook input is not a JSON object")
        }
        guard case .string(let toolName)? = hook["tool_name"], !toolName.isEmpty else {
            return ("ask", "alertctl hook: the hook input names no tool_name")
        }
        let toolInput = hook["tool_input"]?.objectValue ?? [:]
        var lines: [String] = []
        if let session = hook["session_id"]?.stringValue { lines.append("Session: \(session)") }
        if let cwd = hook["cwd"]?.stringValue { lines.append("Directory: \(cwd)") }
        let request = ApprovalRequest(
            toolName: toolName, input: toolInput, toolUseID: hook["tool_use_id"]?.stringValue
        )
        let draft = Approval.draft(toolName: toolName, input: .object(toolInput), context: lines, timeout: timeout)
        // alertd expires the alert at `timeout`; the deadline a little later bounds a wait through an outage.
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000) + 2000)
        switch await request.decide(backend: backend, draft: draft, until: deadline) {
        case .allow(let reason)?:
            return ("allow", reason)
        case .deny(let message)?:
            return ("deny", message)
        case .undecided(let message, let resolution)?:
            return ("ask", Self.askReason(message, resolution: resolution))
        case nil:
            return ("ask", "alertctl hook: cancelled")
        }
    }

    static func askReason(_ message: String, resolution: String) -> String {
        switch resolution {
        case "expired", "pending": "alertd: no answer came in time; asking here"
        case "dismissed": "alertd: the approval request was withdrawn; asking here"
        default: message.replacingOccurrences(of: "Denied: ", with: "") + "; asking here"
        }
    }

    /// The one line Claude Code reads.
    static func output(decision: String, reason: String) -> String {
        let value: JSONValue = .object([
            "hookSpecificOutput": .object([
                "hookEventName": .string("PreToolUse"),
                "permissionDecision": .string(decision),
                "permissionDecisionReason": .string(reason),
            ]),
        ])
        return String(decoding: JSONWriter.encode(value), as: UTF8.self)
    }
}
