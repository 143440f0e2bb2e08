import AlertClient
import CommandLineText

/// `alertctl dismiss ID`: withdraws an alert.
struct DismissCommand: Subcommand {
    static let name = "dismiss"
    static let summary = "Withdraw an alert: it resolves as its cancel button, 'dismissed'."
    static let usage = "alertctl dismiss ID [--json]"
    static let discussion = """
        Prints the Result of the dismissal. Exit status 6 when the alert had already resolved (the result
        that won is printed), 5 when there is no such alert.
        """
    static let options: [CommandLineOption] = [.json]

    let id: String
    let json: Bool

    init(_ arguments: ParsedCommandLine) throws(UsageError) {
        id = try arguments.positionals("ID")[0]
        json = arguments.has("--json")
    }

    func run(_ context: CommandContext) async -> ExitCode {
        do {
            let result = try await context.client.dismiss(id)
            ResultPrinter.print(result, json: json)
            return .ok
        } catch {
            return Failure.report(error, context, json: json)
        }
    }
}
