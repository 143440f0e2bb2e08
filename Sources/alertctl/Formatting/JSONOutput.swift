import AlertClient

/// JSON for `--json`: one compact line, members in the order of `openapi.yaml`, `null` written out.
/// (`JSONEncoder` on Linux orders members by hash, and leaves out `nil`s.)
enum JSONOutput {
    /// A Result.
    static func result(_ result: RemoteResult) -> String {
        object([
            ("buttonIndex", String(result.buttonIndex)), ("buttonTitle", string(result.buttonTitle)),
            ("ok", String(result.ok)), ("values", array(result.values.map { $0.map(string) ?? "null" })),
            ("resolution", string(result.resolution)), ("resolvedAt", string(result.resolvedAt)),
            ("responder", result.responder.map(string) ?? "null"),
        ])
    }

    /// An Alert.
    static func alert(_ alert: RemoteAlert) -> String {
        object([
            ("id", string(alert.id)), ("title", string(alert.title)), ("message", string(alert.message)),
            ("style", string(alert.style)), ("tag", String(alert.tag)), ("presenter", string(alert.presenter)),
            ("animated", String(alert.animated)), ("buttons", array(alert.buttons.map(button))),
            ("fields", array(alert.fields.map(field))), ("state", string(alert.state)),
            ("result", alert.result.map(result) ?? "null"), ("createdAt", string(alert.createdAt)),
            ("expiresAt", alert.expiresAt.map(string) ?? "null"),
        ])
    }

    /// A list of alerts with its change index.
    static func list(_ list: RemoteAlertList) -> String {
        object([("index", String(list.index)), ("alerts", array(list.alerts.map(alert)))])
    }

    private static func button(_ button: RemoteButton) -> String {
        object([("index", String(button.index)), ("title", string(button.title)), ("style", string(button.style))])
    }

    private static func field(_ field: RemoteField) -> String {
        object([
            ("index", String(field.index)), ("text", field.text.map(string) ?? "null"),
            ("placeholder", string(field.placeholder)), ("secure", String(field.secure)),
            ("keyboard", string(field.keyboard)),
        ])
    }

    private static func object(_ members: [(String, String)]) -> String {
        "{" + members.map { string($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }

    private static func array(_ items: [String]) -> String {
        "[" + items.joined(separator: ",") + "]"
    }

    /// A JSON string literal (RFC 8259 escaping).
    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
