import AlertClient
import Foundation

/// Draws the pending list: a heading per presenter, a line per alert, the selected one in reverse video,
/// scrolled so the selection stays in view.
enum DashboardListRenderer {
    private enum Line {
        case presenter(String, count: Int)
        case alert(RemoteAlert)
    }

    /// Draws the shown alerts into `rows`, scrolled so the selection stays in view, the heading of the top row's
    /// group always on the first row.
    /// - Returns: How many alerts are scrolled out of view above and below (for the "more" marks).
    @discardableResult
    static func draw(
        _ state: DashboardState, into canvas: inout Canvas, rows: Range<Int>, glyphs: Glyphs
    ) -> (above: Int, below: Int) {
        guard !rows.isEmpty else { return (0, 0) }
        guard !state.shown.isEmpty else {
            let empty = state.alerts.isEmpty ? "no pending alerts \(glyphs.bullet) new ones appear here as they arrive"
                : "no pending alert matches /\(state.search) \(glyphs.bullet) Esc clears the search"
            canvas.text(empty, row: rows.lowerBound, column: 3, style: .dim)
            return (0, 0)
        }
        var lines: [Line] = []
        for group in state.groups {
            lines.append(.presenter(group.presenter, count: group.alerts.count))
            lines += group.alerts.map(Line.alert)
        }
        let selectedID = state.open == nil ? state.selected?.id : nil
        let selectedLine = lines.firstIndex {
            if case .alert(let alert) = $0 { return alert.id == selectedID }
            return false
        } ?? 0
        var offset = max(0, min(selectedLine - rows.count + 1, lines.count - rows.count))
        // The top row shows the heading of the group it is in; an alert there would be hidden behind it.
        if case .alert = lines[offset], offset == selectedLine { offset -= 1 }
        var visible = Array(lines[offset..<min(offset + rows.count, lines.count)])
        if case .alert(let top) = visible.first {
            let count = state.groups.first { $0.alerts.contains { $0.id == top.id } }?.alerts.count ?? 0
            visible[0] = .presenter(top.presenter, count: count)
        }
        for (row, line) in zip(rows, visible) {
            switch line {
            case .presenter(let presenter, let count):
                canvas.text("\(presenter) (\(count))", row: row, column: 1, style: TextStyle.bold.colored(.cyan))
            case .alert(let alert):
                drawAlert(alert, selected: alert.id == selectedID, into: &canvas, row: row, glyphs: glyphs,
                          now: state.now, readOnly: !state.mayAnswer(alert), marked: state.marked.contains(alert.id))
            }
        }
        func alerts(_ slice: ArraySlice<Line>) -> Int {
            slice.reduce(0) { count, line in
                if case .alert = line { return count + 1 }
                return count
            }
        }
        // The top row is a heading, so the line it stands in for (an alert, or that heading) counts as above.
        let above = alerts(lines[..<min(offset + 1, lines.count)])
        return (above, alerts(lines[min(offset + visible.count, lines.count)...]))
    }

    private static func drawAlert(
        _ alert: RemoteAlert, selected: Bool, into canvas: inout Canvas, row: Int, glyphs: Glyphs, now: Date,
        readOnly: Bool, marked: Bool
    ) {
        let base = TextStyle.plain.reversed(selected)
        if selected { canvas.fill(row: row, column: 0, height: 1, width: canvas.columns, style: base) }
        let kind = (readOnly ? "read-only \(glyphs.bullet) " : "") + kind(of: alert, glyphs: glyphs, now: now)
        let kindColumn = canvas.columns - DisplayWidth.of(kind) - 2
        canvas.text(kind, row: row, column: kindColumn, style: base)
        var column = 1
        canvas.text(selected ? glyphs.pointer : " ", row: row, column: column + 1, style: base.emboldened())
        if marked { canvas.text(glyphs.mark, row: row, column: column + 2, style: base.emboldened().colored(.green)) }
        column += 4
        let time = ClockTime.local(fromRFC3339: alert.createdAt)
        canvas.text(time, row: row, column: column, style: base)
        column += time.count + 2
        let room = kindColumn - column - 2
        let title = DisplayWidth.prefix(alert.displayTitle, fitting: room, ellipsis: glyphs.ellipsis)
        canvas.text(title, row: row, column: column, style: base.emboldened())
        column += DisplayWidth.of(title) + 2
        if !alert.title.isEmpty, !alert.message.isEmpty, kindColumn - column - 2 > 3 {
            canvas.text(summary(of: alert.message), row: row, column: column, width: kindColumn - column - 2,
                        style: selected ? base : .dim)
        }
    }

    /// A message on one line: its lines trimmed and joined by a space, leaving out those with no letter or digit
    /// (the braces of a JSON object), so a tool's input shows its first member: `"command": "rm -rf build", …`.
    static func summary(of message: String) -> String {
        message.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.contains { $0.isLetter || $0.isNumber } }.joined(separator: " ")
    }

    /// "action sheet · 3 buttons", "2 fields · 2 buttons".
    private static func kind(of alert: RemoteAlert, glyphs: Glyphs, now: Date) -> String {
        var parts: [String] = []
        if alert.style == "actionSheet" { parts.append("action sheet") }
        if !alert.fields.isEmpty { parts.append(plural(alert.fields.count, "field")) }
        parts.append(plural(alert.buttons.count, "button"))
        if let expiresAt = alert.expiresAt {
            let left = Age.date(expiresAt).map { max(0, Int($0.timeIntervalSince(now).rounded(.up))) }
            parts.append(left.map { "expires in \(DashboardRenderer.clock(seconds: $0))" } ?? "expires")
        }
        return parts.joined(separator: " \(glyphs.bullet) ")
    }

    private static func plural(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}
