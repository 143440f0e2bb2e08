import AlertClient
import CommandLineText

/// `alertctl get ID`: shows one alert.
struct GetCommand: Subcommand {
    static let name = "get"
    static let summary = "Show one alert: its buttons, fields, state and result."
    static let usage = "alertctl get ID [--json]"
    static let discussion = """
        The text form masks secure field values; --json prints the alert exactly as alertd sent it to
        you, secure values included.
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
            let alert = try await context.client.alert(id)
            if json {
                Console.json(JSONOutput.alert(alert))
            } else {
                Console.out(AlertDescription.text(alert))
            }
            return .ok
        } catch {
            return Failure.report(error, context, json: json)
        }
    }
}
