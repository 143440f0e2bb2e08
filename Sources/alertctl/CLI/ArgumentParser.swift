import CommandLineText

/// A small parser for `command [options] [arguments]`: `--name value`, `--name=value`, short spellings such as
/// `-b value`, flags, repeatable options, and `--` to end options.
struct ArgumentParser: Sendable {
    /// The options the command accepts.
    let options: [OptionSpec]

    /// Parses `arguments` (without the program and command names).
    /// - Throws: `UsageError` for an unknown option, a missing value, or a non-repeatable option given twice.
    func parse(_ arguments: [String]) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if argument == "--" {
                parsed.positionals += remaining
                break
            }
            guard argument.hasPrefix("-"), argument != "-" else {
                parsed.positionals.append(argument)
                continue
            }
            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let spec = options.first(where: { $0.names.contains(name) }) else {
                let known = options.flatMap(\.names).filter { $0.hasPrefix("--") }
                throw UsageError("unknown option '\(name)'" + CommandLineText.suggestion(for: name, in: known))
            }
            if !spec.repeatable, parsed.has(spec.name), spec.value != nil {
                throw UsageError("\(spec.name) given more than once")
            }
            if let placeholder = spec.value {
                guard let value = inlineValue ?? remaining.popFirst() else {
                    throw UsageError("\(name) needs a value (\(placeholder))")
                }
                parsed.add(spec.name, value)
            } else {
                if inlineValue != nil { throw UsageError("\(name) takes no value") }
                parsed.add(spec.name, "")
            }
        }
        return parsed
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
