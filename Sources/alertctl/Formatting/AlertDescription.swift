import AlertClient

/// The text `alertctl get` prints: one "name: value" line per member; secure values masked, control characters
/// escaped (`VisibleText`), so each member keeps to its line.
enum AlertDescription {
    /// `alert` as lines.
    static func text(_ alert: RemoteAlert) -> String {
        var lines: [(String, String)] = [
            ("id", alert.id), ("state", alert.state), ("style", alert.style), ("presenter", alert.presenter),
            ("title", alert.title), ("message", alert.message), ("tag", String(alert.tag)),
        ]
        for button in alert.buttons {
            let style = button.style == "default" ? "" : " (\(button.style))"
            lines.append(("button \(button.index)", button.title + style))
        }
        for field in alert.fields {
            let text = field.secure ? mask(field.text) : "\"\(field.text ?? "")\""
            let kind = field.secure ? "secure field" : "field"
            let detail = "\(text), placeholder \"\(field.placeholder)\", keyboard \(field.keyboard)"
            lines.append(("\(kind) \(field.index)", detail))
        }
        lines.append(("created", alert.createdAt))
        if let expiresAt = alert.expiresAt { lines.append(("expires", expiresAt)) }
        if let result = alert.result {
            lines.append(("result", "\(result.resolution): \(result.buttonTitle) (button \(result.buttonIndex))"))
            for (index, value) in result.values.enumerated() {
                let secure = alert.fields.indices.contains(index) && alert.fields[index].secure
                lines.append(("value \(index)", secure ? mask(value) : "\"\(value ?? "")\""))
            }
            lines.append(("resolved", result.resolvedAt))
        }
        let width = lines.map(\.0.count).max() ?? 0
        return lines.map { name, value in
            (name + ":").padding(toLength: width + 2, withPad: " ", startingAt: 0) + VisibleText.escaped(value)
        }.joined(separator: "\n")
    }

    /// A secure value as shown on screen: nothing about it but whether it is empty.
    static func mask(_ value: String?) -> String {
        guard let value else { return "(hidden)" }
        return value.isEmpty ? "(empty, hidden)" : "(hidden)"
    }
}
