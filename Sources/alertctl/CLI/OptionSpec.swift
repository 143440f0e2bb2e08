/// One option a command accepts: its spellings, whether it takes a value, whether it may repeat.
struct OptionSpec: Sendable {
    /// Spellings; the first is the canonical name results are filed under, such as `--button`.
    let names: [String]
    /// Placeholder of the value in help (`TITLE`), `nil` for a flag.
    let value: String?
    /// Whether the option may be given more than once (each value is kept, in order).
    let repeatable: Bool
    /// One line of help.
    let help: String

    /// The canonical name.
    var name: String { names[0] }

    /// An option taking a value.
    static func option(_ names: String..., value: String, repeatable: Bool = false, help: String) -> OptionSpec {
        OptionSpec(names: names, value: value, repeatable: repeatable, help: help)
    }

    /// A flag without a value.
    static func flag(_ names: String..., help: String) -> OptionSpec {
        OptionSpec(names: names, value: nil, repeatable: false, help: help)
    }

    /// `--url URL`, accepted by every command.
    static let url = option(
        "--url", value: "URL", help: "alertd's URL (default: $ALERTD_URL, else http://127.0.0.1:8080)")
    /// `-h`, `--help`, accepted by every command.
    static let help = flag("--help", "-h", help: "Show this help")
    /// `--json`.
    static let json = flag("--json", help: "Print JSON instead of text")

    /// The help line, such as `  -b, --button TITLE   Add a button`.
    var helpLine: String {
        let spelled = names.sorted { $0.count < $1.count }.joined(separator: ", ") + (value.map { " " + $0 } ?? "")
        let padded = spelled.count < 24 ? spelled.padding(toLength: 24, withPad: " ", startingAt: 0) : spelled + "  "
        return "  " + padded + help
    }
}
