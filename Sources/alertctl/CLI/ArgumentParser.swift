import CommandLineText

/// The shared command-line reader (`CommandLineReader`) with alertctl's words for what is wrong: `command [options]
/// [arguments]`, a non-repeatable option given twice refused.
struct ArgumentParser: Sendable {
    /// The options the command accepts.
    let options: [CommandLineOption]

    /// Parses `arguments` (without the program and command names).
    /// - Throws: `UsageError` for an unknown option, a missing value, or a non-repeatable option given twice.
    func parse(_ arguments: [String]) throws(UsageError) -> ParsedCommandLine {
        var reader = CommandLineReader(arguments, options: options)
        do {
            return try reader.parse()
        } catch {
            switch error {
            case .unknownOption(_, let name, let suggestion):
                throw UsageError("unknown option '\(name)'" + suggestion)
            case .missingValue(let option, let name):
                guard case .value(let placeholder) = option.kind else { throw UsageError("\(name) needs a value") }
                throw UsageError("\(name) needs a value (\(placeholder))")
            case .unexpectedValue(_, let name):
                throw UsageError("\(name) takes no value")
            case .repeated(let option):
                throw UsageError("\(option.name) given more than once")
            }
        }
    }

    /// Takes `--url URL` / `--url=URL` out of `arguments`, wherever it is, for commands that parse the rest
    /// themselves (`dashboard`, `demo`).
    /// - Returns: The URL given (the last one) and the other arguments, in order.
    static func extractURL(_ arguments: [String]) throws(UsageError) -> (url: String?, rest: [String]) {
        var url: String?
        var rest: [String] = []
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if argument == "--" {
                rest.append(argument)
                rest += remaining
                break
            } else if argument == "--url" {
                guard let value = remaining.popFirst() else { throw UsageError("--url needs a value (URL)") }
                url = value
            } else if argument.hasPrefix("--url=") {
                url = String(argument.dropFirst("--url=".count))
            } else {
                rest.append(argument)
            }
        }
        return (url, rest)
    }
}

extension CommandLineOption {
    /// `--url URL`, accepted by every command.
    static let url = option(
        "--url", value: "URL", help: "alertd's URL (default: $ALERTD_URL, else http://127.0.0.1:8080)")
    /// `-h`, `--help`, accepted by every command.
    static let help = flag("--help", "-h", help: "Show this help")
    /// `--json`.
    static let json = flag("--json", help: "Print JSON instead of text")
}
