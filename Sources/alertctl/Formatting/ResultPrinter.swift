import AlertClient

/// Prints a Result: the chosen button's title, then each field value on its own line; or JSON.
enum ResultPrinter {
    /// Prints `result` to standard output: the button's title, then (when a responder answered; for the cancel button
    /// only when a value is not empty, such as a deny's reason) one line per field value, control characters escaped (a newline in a value is `\n`, so each value keeps to its line);
    /// `--json` has them exactly.
    /// - Parameters:
    ///   - result: The Result.
    ///   - json: Print the Result as JSON instead.
    static func print(_ result: RemoteResult, json: Bool) {
        if json {
            Console.json(JSONOutput.result(result))
            return
        }
        Console.out(VisibleText.escaped(result.buttonTitle))
        // A dismissal or an expiry carries no answer, and a cancel with nothing typed only the fields' untouched
        // texts: no (blank) lines. A cancel that carries text (a deny's reason) prints it.
        guard result.isAnswered, result.ok || result.values.contains(where: { !($0 ?? "").isEmpty }) else { return }
        for value in result.values {
            Console.out(VisibleText.escaped(value ?? ""))
        }
    }

    /// The exit code a Result means for `alert --wait` and `wait`: 0 when a responder chose a button other than
    /// cancel, else 1 (saying on standard error when the alert was dismissed or expired).
    static func exitCode(for result: RemoteResult) -> ExitCode {
        if result.isAccepted { return .ok }
        if !result.isAnswered {
            Console.err(result.resolution == "expired" ? "alertctl: the alert expired"
                : "alertctl: the alert was \(result.resolution)")
        }
        return .notAccepted
    }
}
