import AlertClient

/// Draws the pending list: a heading per presenter, a line per alert, the selected one in reverse video,
/// scrolled so the selection stays in view.
enum DashboardListRenderer {
    private enum Line {
        case presenter(String, count: Int)
        case alert(RemoteAlert)
    }

    static func draw(_ state: DashboardState, into canvas: inout Canvas, rows: Range<Int>, glyphs: Glyphs) {
        guard !rows.isEmpty else { return }
        guard !state.alerts.isEmpty else {
            canvas.text("no pending alerts \(glyphs.bullet) new ones appear here as they arrive",
                        row: rows.lowerBound, column: 3, style: .dim)
            return
        }
        var lines: [Line] = []
        for group in state.groups {
            lines.append(.presenter(group.presenter, count: group.alerts.count))
            lines += group.alerts.map(Line.alert)
        }
        let selectedID = state.open == nil ? state.selectedPosition.map { state.alerts[$0].id } : nil
        let selectedLine = lines.firstIndex {
            if case .alert(let alert) = $0 { return alert.id == selectedID }
            return false
        } ?? 0
        let offset = max(0, min(selectedLine - rows.count + 1, lines.count - rows.count))
        for (row, line) in zip(rows, lines[offset...]) {
            switch line {
            case .presenter(let presenter, let count):
                canvas.text("\(presenter) (\(count))", row: row, column: 1, style: TextStyle.bold.colored(.cyan))
            case .alert(let alert):
                drawAlert(alert, selected: alert.id == selectedID, into: &canvas, row: row, glyphs: glyphs)
            }
        }
    }

    private static func drawAlert(
        _ alert: RemoteAlert, selected: Bool, into canvas: inout Canvas, row: Int, glyphs: Glyphs
    ) {
        let base = TextStyle.plain.reversed(selected)
        if selected { canvas.fill(row: row, column: 0, height: 1, width: canvas.columns, style: base) }
        let kind = kind(of: alert, glyphs: glyphs)
        let kindColumn = canvas.columns - DisplayWidth.of(kind) - 2
        canvas.text(kind, row: row, column: kindColumn, style: base)
        var column = 1
        canvas.text(selected ? glyphs.pointer : " ", row: row, column: column + 1, style: base.emboldened())
        column += 4
        let time = ClockTime.local(fromRFC3339: alert.createdAt)
        canvas.text(time, row: row, column: column, style: base)
        column += time.count + 2
        let room = kindColumn - column - 2
        let title = DisplayWidth.prefix(alert.displayTitle, fitting: room, ellipsis: glyphs.ellipsis)
        canvas.text(title, row: row, column: column, style: base.emboldened())
        column += DisplayWidth.of(title) + 2
        if !alert.title.isEmpty, !alert.message.isEmpty, kindColumn - column - 2 > 3 {
            let message = alert.message.split(separator: "\n").joined(separator: " ")
            canvas.text(message, row: row, column: column, width: kindColumn - column - 2,
                        style: selected ? base : .dim)
        }
    }

    /// "action sheet · 3 buttons", "2 fields · 2 buttons".
    private static func kind(of alert: RemoteAlert, glyphs: Glyphs) -> String {
        var parts: [String] = []
        if alert.style == "actionSheet" { parts.append("action sheet") }
        if !alert.fields.isEmpty { parts.append(plural(alert.fields.count, "field")) }
        parts.append(plural(alert.buttons.count, "button"))
        if alert.expiresAt != nil { parts.append("expires") }
        return parts.joined(separator: " \(glyphs.bullet) ")
    }

    private static func plural(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}
