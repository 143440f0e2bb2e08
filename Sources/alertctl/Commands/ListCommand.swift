import AlertClient
import CommandLineText
import Foundation

/// `alertctl list`: a table of alerts, oldest first.
struct ListCommand: Subcommand {
    static let name = "list"
    static let summary = "List alerts, oldest first, as a table (or JSON)."
    static let usage = "alertctl list [--state pending|resolved|all] [--presenter NAME] [--limit N] [--json]"
    static let discussion = """
        Columns: AGE, ID, PRESENTER, the title (or message), and the buttons in order: the first is
        the cancel button, a trailing ! marks a destructive one. Resolved alerts show their result.
        Secure values never appear in lists. Every alert up to --limit is listed, however large: alertctl
        reads each page of alertd's list (a page holds at most 1 MiB) in turn.
        """
    static let options: [CommandLineOption] = [
        .option("--state", "-s", value: "STATE", help: "pending (default), resolved or all"),
        .option("--presenter", "-p", value: "NAME", help: "Only alerts addressed to this presenter"),
        .option("--limit", "-n", value: "N", help: "At most N alerts (1 to 1000; default \(defaultLimit))"),
        .json,
    ]

    /// How many alerts are listed without `--limit`.
    static let defaultLimit = 100

    let state: String
    let presenter: String?
    let limit: Int?
    let json: Bool

    init(_ arguments: ParsedCommandLine) throws(UsageError) {
        _ = try arguments.positionals()
        state = arguments.value("--state") ?? "pending"
        guard ["pending", "resolved", "all"].contains(state) else {
            throw UsageError("--state must be pending, resolved or all; got '\(state)'")
        }
        presenter = arguments.value("--presenter")
        limit = try arguments.integer("--limit")
        if let limit, !(1...1000).contains(limit) {
            throw UsageError("--limit must be 1 to 1000; got \(limit)")
        }
        json = arguments.has("--json")
    }

    func run(_ context: CommandContext) async -> ExitCode {
        do {
            let list = try await context.client.listAll(state: state, presenter: presenter,
                                                        limit: limit ?? Self.defaultLimit)
            if json {
                Console.json(JSONOutput.list(list))
            } else if list.alerts.isEmpty {
                Console.out("no \(state == "all" ? "" : state + " ")alerts")
            } else {
                Console.out(AlertTable.render(list.alerts, now: Date()))
            }
            return .ok
        } catch {
            return Failure.report(error, context, json: json)
        }
    }
}
