/// Reads a command line one item at a time against its options: `--name value`, `--name=value`, short spellings
/// such as `-b value`, flags, toggles (`--insecure`, `--insecure off`), and `--`, after which every argument is a
/// positional. A program that must act on each item before the next is read (the first bad value wins over a later
/// unknown option) calls `next()`; one that wants them all calls `parse()`.
public struct CommandLineReader: Sendable {
    /// One thing read.
    public enum Item: Sendable {
        /// An option and its value: the given one, `on` or `off` for a toggle, nil for a flag.
        case option(CommandLineOption, String?)
        /// An argument that is not an option.
        case positional(String)
    }

    /// Why the command line cannot be read; each program words it in its own voice.
    public enum Failure: Error, Sendable {
        /// `argument` names no option; `name` is it without an inline value, `suggestion` the did-you-mean
        /// (" (did you mean '--port'?)", or "").
        case unknownOption(argument: String, name: String, suggestion: String)
        /// The option, spelled `name`, takes a value and none followed.
        case missingValue(CommandLineOption, name: String)
        /// The flag, spelled `name`, was given a value (`--json=yes`).
        case unexpectedValue(CommandLineOption, name: String)
        /// A non-repeatable option was given again (`parse(refusingRepeats: true)`).
        case repeated(CommandLineOption)
    }

    public let options: [CommandLineOption]
    private var remaining: ArraySlice<String>
    private var positionalsOnly = false

    public init(_ arguments: [String], options: [CommandLineOption]) {
        self.options = options
        remaining = arguments[...]
    }

    /// The next item; nil once every argument is read.
    public mutating func next() throws(Failure) -> Item? {
        guard let argument = remaining.popFirst() else { return nil }
        if positionalsOnly { return .positional(argument) }
        if argument == "--" {
            positionalsOnly = true
            return try next()
        }
        guard argument.hasPrefix("-"), argument != "-" else { return .positional(argument) }
        // `--name=value` splits at the first `=` only, and keeps an empty value (`--host=`) as given: the option
        // then judges it, it is never taken from the next argument.
        var name = argument
        var inline: String?
        if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
            name = String(argument[..<equals])
            inline = String(argument[argument.index(after: equals)...])
        }
        guard let option = options.first(where: { $0.names.contains(name) }) else {
            let known = options.flatMap(\.names).filter { $0.hasPrefix("--") }
            throw .unknownOption(argument: argument, name: name,
                                 suggestion: CommandLineText.suggestion(for: name, in: known))
        }
        switch option.kind {
        case .flag:
            if inline != nil { throw .unexpectedValue(option, name: name) }
            return .option(option, nil)
        case .value:
            guard let value = inline ?? remaining.popFirst() else { throw .missingValue(option, name: name) }
            return .option(option, value)
        case .toggle:
            if let inline { return .option(option, inline) }
            if let next = remaining.first, next == "on" || next == "off" {
                remaining = remaining.dropFirst()
                return .option(option, next)
            }
            return .option(option, "on")
        }
    }

    /// Every item, collected.
    /// - Parameter refusingRepeats: whether a non-repeatable option given twice is a failure (else the last wins).
    public mutating func parse(refusingRepeats: Bool = true) throws(Failure) -> ParsedCommandLine {
        var parsed = ParsedCommandLine()
        while let item = try next() {
            switch item {
            case .positional(let argument):
                parsed.positionals.append(argument)
            case .option(let option, let value):
                if refusingRepeats, !option.repeatable, option.kind != .flag, parsed.has(option.name) {
                    throw .repeated(option)
                }
                parsed.add(option.name, value ?? "")
            }
        }
        return parsed
    }
}

/// A command line after parsing: option values by canonical name, and the positional arguments.
public struct ParsedCommandLine: Sendable {
    /// Arguments that are not options, in order.
    public var positionals: [String] = []
    /// Values by canonical option name; a flag has one empty value per occurrence.
    public private(set) var values: [String: [String]] = [:]
    /// Every option given, in command-line order: canonical name and value.
    public private(set) var occurrences: [(name: String, value: String)] = []

    public init() {}

    /// Whether the flag or option was given.
    public func has(_ name: String) -> Bool {
        values[name] != nil
    }

    /// The value of a non-repeatable option (the last given).
    public func value(_ name: String) -> String? {
        values[name]?.last
    }

    /// Every value of a repeatable option, in order.
    public func all(_ name: String) -> [String] {
        values[name] ?? []
    }

    /// The values of several options, interleaved in command-line order (`--field` and `--secure-field`).
    public func ordered(_ names: Set<String>) -> [(name: String, value: String)] {
        occurrences.filter { names.contains($0.name) }
    }

    /// Records one occurrence of an option.
    public mutating func add(_ name: String, _ value: String) {
        values[name, default: []].append(value)
        occurrences.append((name, value))
    }
}
