import CommandLineText

/// A command line after parsing: option values by canonical name, and the positional arguments.
struct ParsedArguments: Sendable {
    /// Arguments that are not options, in order.
    var positionals: [String] = []
    /// Values by canonical option name; a flag has one empty value per occurrence.
    var values: [String: [String]] = [:]
    /// Every option given, in command-line order: canonical name and value.
    var occurrences: [(name: String, value: String)] = []

    /// Whether the flag or option was given.
    func has(_ name: String) -> Bool {
        values[name] != nil
    }

    /// The value of a non-repeatable option.
    func value(_ name: String) -> String? {
        values[name]?.last
    }

    /// Every value of a repeatable option, in order.
    func all(_ name: String) -> [String] {
        values[name] ?? []
    }

    /// The values of several options, interleaved in command-line order (`--field` and `--secure-field`).
    func ordered(_ names: Set<String>) -> [(name: String, value: String)] {
        occurrences.filter { names.contains($0.name) }
    }

    /// Records one occurrence of an option.
    mutating func add(_ name: String, _ value: String) {
        values[name, default: []].append(value)
        occurrences.append((name, value))
    }

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
