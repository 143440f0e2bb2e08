import AlertClient
import CommandLineText

/// `alertctl answer ID --button TITLE`: answers an alert.
struct AnswerCommand: Subcommand {
    static let name = "answer"
    static let summary = "Answer an alert: choose a button, give the fields' values."
    static let usage = "alertctl answer ID (--button TITLE | --index N) [--value TEXT ...] [--json]"
    static let discussion = """
        --value gives the fields' values in order, one per field; without any, each field keeps its text.
        Prints the Result (the chosen button's title and the values). Exit status 6 when the alert had
        already resolved (the result that won is printed), 5 when there is no such alert.
        """
    static let options: [CommandLineOption] = [
        .option("--button", "-b", value: "TITLE", help: "Choose the button with this title"),
        .option("--index", "-i", value: "N", help: "Choose the button at this index (0 is cancel)"),
        .option("--value", "-v", value: "TEXT", repeatable: true, help: "A field's value (repeat, in order)"),
        .json,
    ]

    let id: String
    let button: String?
    let index: Int?
    let values: [String]?
    let json: Bool

    init(_ arguments: ParsedCommandLine) throws(UsageError) {
        id = try arguments.positionals("ID")[0]
        button = arguments.value("--button")
        index = try arguments.integer("--index")
        if (button == nil) == (index == nil) {
            throw UsageError("give exactly one of --button TITLE and --index N")
        }
        if let index, index < 0 { throw UsageError("--index must not be negative") }
        let values = arguments.all("--value")
        self.values = values.isEmpty ? nil : values
        json = arguments.has("--json")
    }

    func run(_ context: CommandContext) async -> ExitCode {
        do {
            let result: RemoteResult
            if let button {
                result = try await context.client.answer(id, button: button, values: values)
            } else {
                result = try await context.client.answer(id, buttonIndex: index ?? 0, values: values)
            }
            ResultPrinter.print(result, json: json)
            return .ok
        } catch {
            if let ambiguous = Self.ambiguousTitle(error) {
                Console.err("alertctl: \(ambiguous)")
                return .rejected
            }
            return Failure.report(error, context, json: json)
        }
    }

    /// The server's word on a title that several buttons share, in alertctl's terms (`--index N`, not
    /// `buttonIndex`); `nil` for any other error.
    private static func ambiguousTitle(_ error: AlertClientError) -> String? {
        guard error.status == 422,
              let issue = error.problem?.errors.first(where: { $0.pointer == "/button" }),
              let range = issue.detail.range(of: "answer by buttonIndex")
        else { return nil }
        return issue.detail.replacingCharacters(in: range, with: "answer with --index N")
    }
}
