import AlertClient
import AlertMCP
import BuildInfo
import CommandLineText
import Foundation

/// `alertctl mcp`: an MCP server on standard input and output whose tools put questions to people through alertd.
struct MCPCommand: Subcommand {
    static let name = "mcp"
    static let summary = "An MCP server on stdio, for agents to ask people through alertd (ask, approve and more)."
    static let usage = "alertctl mcp [--reveal-secure] [--progress-interval DURATION] [--approval-timeout DURATION]"
    static let discussion = """
        An MCP server (revisions 2025-06-18, 2025-11-25, 2026-07-28) on standard input and output, one message a
        line; logs go to standard error. Its tools: ask, create, wait, get, dismiss, list, and approve (Claude
        Code's permission prompt tool). It talks to alertd as every command does (ALERTD_URL or --url,
        ALERTD_TOKEN or ALERTD_TOKEN_FILE). A waiting call sends a progress notification every interval when
        the client asked for progress, and rides out an alertd restart. Values typed into secure fields are
        withheld from the agent unless --reveal-secure is given. docs/AGENTS.md has configurations to copy.
        """
    static let options: [CommandLineOption] = [
        .flag("--reveal-secure", help: "Return the values of secure fields to the agent (withheld by default)"),
        .option("--progress-interval", value: "DURATION", help: "Progress notifications while a call waits",
                default: "10s"),
        .option("--approval-timeout", value: "DURATION",
                help: "approve: an unanswered request expires (and denies) after this long (default: never)"),
    ]

    let options: MCPServer.Options

    init(_ arguments: ParsedCommandLine) throws(UsageError) {
        _ = try arguments.positionals()
        let interval = try arguments.seconds("--progress-interval") ?? 10
        options = MCPServer.Options(
            version: BuildInfo.version, revealSecure: arguments.has("--reveal-secure"),
            progressInterval: .milliseconds(Int64(interval * 1000)),
            approvalTimeout: try arguments.seconds("--approval-timeout")
        )
    }

    func run(_ context: CommandContext) async -> ExitCode {
        let backend = ClientBackend(context: context)
        let server = MCPServer(backend: backend, options: options)
        // A client that closes our standard output makes writes fail with EPIPE (the transport then stops writing)
        // rather than kill the process before it withdraws the alerts of its waiting calls.
        signal(SIGPIPE, SIG_IGN)
        Console.err("alertctl mcp: serving MCP on standard input and output for alertd at \(context.url)")
        await StdioTransport(server: server).run()
        return .ok
    }
}
