import CommandLineText

/// What alertctl's commands read from a parsed command line besides its raw values: numbers, durations, and an
/// exact number of positionals, each refused with a `UsageError` that says what was expected.
extension ParsedCommandLine {
    /// The value parsed as an integer type.
    func integer<T: FixedWidthInteger>(_ name: String, as type: T.Type = Int.self) throws(UsageError) -> T? {
        guard let text = value(name) else { return nil }
        guard let number = T(text) else { throw UsageError("\(name) needs a whole number; got '\(text)'") }
        return number
    }

    /// The longest duration an option takes, in seconds (3650 days): longer would not fit a `Duration` (`1e300`
    /// trapped `wait --timeout`), and no wait is meant to outlast it.
    static let longestSeconds: Double = 3650 * 86_400

    /// The value parsed as a positive duration of at most `longestSeconds`, in seconds: a number of seconds (`90`,
    /// `0.5`) or with units (`90s`, `5m`, `1h30m`, `7d`, `500ms`).
    func seconds(_ name: String) throws(UsageError) -> Double? {
        guard let text = value(name) else { return nil }
        guard let number = CommandLineText.seconds(text), number > 0, number <= Self.longestSeconds else {
            throw UsageError("\(name) needs a positive duration of at most 3650d: seconds, or with a unit (90s, 5m, "
                + "1h, 7d); got '\(text)'")
        }
        return number
    }

    /// Exactly `count` positionals named by `names` (for messages), or a usage error.
    func positionals(_ names: String...) throws(UsageError) -> [String] {
        if positionals.count < names.count {
            throw UsageError("missing \(names[positionals.count])")
        }
        if positionals.count > names.count {
            throw UsageError("unexpected argument '\(positionals[names.count])'")
        }
        return positionals
    }
}
