import AlertClient
import CommandLineText

/// `alertctl alert TITLE …`: posts an alert; with `--wait`, waits for the answer.
struct AlertCommand: Subcommand {
    static let name = "alert"
    static let aliases = ["post"]
    static let summary = "Post an alert, or with --wait ask and wait for the answer; exit 0 unless it was cancel."
    static let usage = "alertctl alert [TITLE] [--message TEXT] [--button TITLE ...] [options] [--wait] [--json]"
    static let discussion = """
        TITLE is the alert's title (or give --title); at least a title or a message is needed.
        Buttons keep their order; the left-most is the cancel button unless --cancel names one.
        No buttons means one OK button. --cancel and --destructive add the button if no --button names it.

        The create is retried with one Idempotency-Key while its connection is lost or the server answers
        502/503/504 (for up to 30 s): a restart between its commit and its answer gives the alert it made,
        not a second one. A server that refuses the first connection is reported at once (exit 3).
        Without --wait, prints the new alert's id (with --json, the alert as JSON).
        With --wait, waits until the alert resolves (across long-poll time-outs and a briefly unreachable
        server), then prints the chosen button's title and each field's value on its own line (secure
        values too: you asked for them), or with --json the Result as JSON. Exit status: 0 when a button
        other than cancel was chosen; 1 when cancel was chosen, or the alert was dismissed or expired.
        Ctrl-C stops waiting; the alert stays pending (withdraw it with 'alertctl dismiss ID').

        Example:
          if alertctl alert "Deploy to prod?" --button Cancel --button Deploy --destructive Deploy --wait
          then ./deploy.sh; fi
        """
    static let options: [CommandLineOption] = [
        .option("--title", "-t", value: "TEXT", help: "The title (instead of the TITLE argument)"),
        .option("--message", "-m", value: "TEXT", help: "The message"),
        .option("--button", "-b", value: "TITLE", repeatable: true, help: "Add a button (repeat, in order)"),
        .option("--cancel", value: "TITLE", repeatable: true, help: "Make TITLE the cancel button"),
        .option("--destructive", value: "TITLE", repeatable: true, help: "Mark TITLE destructive (drawn in red)"),
        .option("--field", value: "PLACEHOLDER", repeatable: true, help: "Add a text field"),
        .option("--secure-field", value: "PLACEHOLDER", repeatable: true, help: "Add a secure (masked) text field"),
        .option("--style", value: "STYLE", help: "alert (default) or actionSheet"),
        .option("--presenter", "-p", value: "NAME", help: "Address it to this presenter (default root)"),
        .option("--tag", value: "N", help: "An integer echoed back (default 0)"),
        .option("--timeout", value: "DURATION",
                help: "Expire as the cancel button after this long (seconds, or 90s, 5m, 1h, 7d)"),
        .flag("--wait", "-w", help: "Wait for the answer; exit 0 unless cancel, dismissed or expired"),
        .json,
    ]

    /// How long the create is retried (with one idempotency key) after a lost connection or a 502/503/504.
    static let createRetryLimit: Duration = .seconds(30)

    let input: AlertInput
    let wait: Bool
    let json: Bool

    init(_ arguments: ParsedCommandLine) throws(UsageError) {
        if arguments.positionals.count > 1 {
            throw UsageError("unexpected argument '\(arguments.positionals[1])' (quote a title with spaces)")
        }
        if !arguments.positionals.isEmpty, arguments.has("--title") {
            throw UsageError("give the title either as an argument or with --title, not both")
        }
        let title = arguments.positionals.first ?? arguments.value("--title")
        let message = arguments.value("--message")
        if (title ?? "").isEmpty, (message ?? "").isEmpty {
            throw UsageError("an alert needs a title or a message")
        }
        var input = AlertInput(title: title, message: message)
        input.style = try Self.style(arguments.value("--style"))
        input.presenter = arguments.value("--presenter")
        input.tag = try arguments.integer("--tag", as: Int64.self) ?? 0
        input.timeout = try arguments.seconds("--timeout")
        input.buttons = Self.buttons(
            arguments.all("--button"), cancel: arguments.all("--cancel"), destructive: arguments.all("--destructive"))
        input.destructive = arguments.all("--destructive")
        input.fields = Self.fields(arguments)
        self.input = input
        wait = arguments.has("--wait")
        json = arguments.has("--json")
    }

    func run(_ context: CommandContext) async -> ExitCode {
        do {
            // A lost response or a restart of the server between its commit and its answer must not make two alerts.
            let alert = try await context.client.createRetrying(input, giveUpAfter: Self.createRetryLimit)
            guard wait else {
                if json {
                    Console.json(JSONOutput.alert(alert))
                } else {
                    Console.out(alert.id)
                }
                return .ok
            }
            if Console.stderrIsTerminal {
                Console.err("alertctl: waiting for an answer to \(alert.id) (Ctrl-C stops waiting)")
            }
            let result = try await context.client.waitForResult(alert.id, progress: context.waitProgress)
            ResultPrinter.print(result, json: json)
            return ResultPrinter.exitCode(for: result)
        } catch {
            return Failure.report(error, context, json: json)
        }
    }

    /// `--style`: `alert` or `actionSheet` (also `action-sheet`, `sheet`; any case).
    static func style(_ text: String?) throws(UsageError) -> AlertStyle {
        guard let text else { return .alert }
        switch text.lowercased() {
        case "alert": return .alert
        case "actionsheet", "action-sheet", "sheet": return .actionSheet
        default: throw UsageError("--style must be alert or actionSheet; got '\(text)'")
        }
    }

    /// The buttons in order: each `--button`, marked cancel when `--cancel` names it; then `--cancel` and
    /// `--destructive` titles that no `--button` named.
    static func buttons(_ titles: [String], cancel: [String], destructive: [String]) -> [ButtonInput] {
        var buttons = titles.map { cancel.contains($0) ? ButtonInput.cancel($0) : ButtonInput($0) }
        for title in cancel where !titles.contains(title) {
            buttons.append(.cancel(title))
        }
        for title in destructive where !titles.contains(title) && !cancel.contains(title) {
            buttons.append(ButtonInput(title))
        }
        return buttons
    }

    /// `--field` and `--secure-field`, in the order given on the command line.
    static func fields(_ arguments: ParsedCommandLine) -> [FieldInput] {
        arguments.ordered(["--field", "--secure-field"]).map { name, placeholder in
            FieldInput(placeholder: placeholder, secure: name == "--secure-field")
        }
    }
}
