import AlertClient
import CommandLineText

/// One `alertctl` command: its names, help, options, and how it runs.
protocol Subcommand {
    /// The name typed after `alertctl`.
    static var name: String { get }
    /// Other names for it (`post` for `alert`).
    static var aliases: [String] { get }
    /// One line for `alertctl --help`.
    static var summary: String { get }
    /// The usage line(s), such as `alertctl get ID [--json]`.
    static var usage: String { get }
    /// What `--help` says after the usage and before the options.
    static var discussion: String { get }
    /// The options it accepts, besides `--url` and `--help`.
    static var options: [CommandLineOption] { get }

    /// Checks the command line.
    init(_ arguments: ParsedCommandLine) throws(UsageError)

    /// Runs against `client` and returns the exit code.
    func run(_ context: CommandContext) async -> ExitCode
}

extension Subcommand {
    static var aliases: [String] { [] }

    /// The full `--help` text.
    static var help: String {
        var text = "Usage: \(usage)\n\n\(summary)\n"
        if !discussion.isEmpty { text += "\n\(discussion)\n" }
        text += "\nOptions:\n" + (options + [.url, .help]).map(\.helpLine).joined(separator: "\n")
        return text
    }
}

/// What a running command needs: the client and the URL it talks to (for messages).
struct CommandContext: Sendable {
    /// The client for `url`.
    let client: AlertClient
    /// The base URL, as shown in messages.
    var url: String { client.baseURL.absoluteString }

    /// For `waitForResult`: says on standard error, once per outage, that alertd cannot be reached and the wait
    /// goes on, and when it answers again, so a wait never sits silent through an outage.
    var waitProgress: @Sendable (WaitProgress) -> Void {
        let url = url
        return { progress in
            switch progress {
            case .retrying(let error, _, first: true):
                Console.err("alertctl: lost alertd at \(url) (\(error.reason)); retrying until it answers…")
            case .retrying:
                break
            case .reconnected:
                Console.err("alertctl: reconnected to \(url); still waiting")
            }
        }
    }
}
