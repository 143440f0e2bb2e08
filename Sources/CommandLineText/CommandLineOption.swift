/// One option of a command line, declared once: its spellings, what it takes, its help with its default, and the
/// environment variable that also sets it. `--help` is rendered from these (`helpLine`, `table`), and the parser
/// (`CommandLineReader`) reads them, so a default or a help text is never written twice.
public struct CommandLineOption: Sendable {
    /// What follows the option.
    public enum Kind: Sendable, Equatable {
        /// Nothing: `--json`.
        case flag
        /// A value, as the next argument or after `=`; the placeholder `--help` shows (`N`, `URL`).
        case value(String)
        /// On or off: alone it is on; `--name=on|off` and `--name on|off` say which.
        case toggle
    }

    /// Spellings, the canonical one first (`--button`, `-b`); none for a setting only the environment gives.
    public let names: [String]
    public let kind: Kind
    /// Whether it may be given more than once (each value is kept, in order).
    public let repeatable: Bool
    /// What it does.
    public let help: String
    /// Its default, as `--help` shows it after the help: `(default 8080)`; nil when the help says it.
    public let defaultValue: String?
    /// The environment variable that also sets it, if any.
    public let environment: String?

    public init(_ names: [String], _ kind: Kind = .flag, repeatable: Bool = false, help: String,
                default defaultValue: String? = nil, environment: String? = nil) {
        self.names = names
        self.kind = kind
        self.repeatable = repeatable
        self.help = help
        self.defaultValue = defaultValue
        self.environment = environment
    }

    /// An option taking a value.
    public static func option(_ names: String..., value: String, repeatable: Bool = false, help: String,
                              default defaultValue: String? = nil) -> CommandLineOption {
        CommandLineOption(names, .value(value), repeatable: repeatable, help: help, default: defaultValue)
    }

    /// A flag without a value.
    public static func flag(_ names: String..., help: String) -> CommandLineOption {
        CommandLineOption(names, .flag, help: help)
    }

    /// The canonical name; the environment variable for a setting without a flag.
    public var name: String { names.first ?? environment ?? "" }

    /// The help and the default: what `--help` shows, and what an error about the option quotes.
    public var description: String {
        defaultValue.map { "\(help) (default \($0))" } ?? help
    }

    /// One line of a command's `--help`, such as `  -b, --button TITLE   Add a button`.
    public var helpLine: String {
        var spelled = names.sorted { $0.count < $1.count }.joined(separator: ", ")
        if case .value(let placeholder) = kind { spelled += " " + placeholder }
        return "  " + (spelled.count < 24 ? Self.padded(spelled, to: 24) : spelled + "  ") + description
    }

    /// The lines of a table of `options`, each with its flag, its variable and its description in columns; then
    /// `extra` rows (a spelling and what it does) whose text starts in the third column.
    public static func table(_ options: [CommandLineOption], extra: [(String, String)] = []) -> String {
        let spellings = options.map { option -> String in
            guard let flag = option.names.first else { return "" }
            switch option.kind {
            case .flag: return flag
            case .value: return "\(flag) VALUE"
            case .toggle: return "\(flag) [on|off]"
            }
        }
        let flagWidth = (spellings.map(\.count).max() ?? 0) + 2
        let environmentWidth = (options.map { $0.environment?.count ?? 0 }.max() ?? 0) + 2
        var text = ""
        for (option, spelled) in zip(options, spellings) {
            let environment = padded(option.environment ?? "", to: environmentWidth)
            text += "  " + padded(spelled, to: flagWidth) + environment + option.description + "\n"
        }
        for (spelled, help) in extra {
            text += "  " + padded(spelled, to: flagWidth + environmentWidth) + help + "\n"
        }
        return text
    }

    /// `text` with spaces after it up to `width` characters.
    private static func padded(_ text: String, to width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }
}
