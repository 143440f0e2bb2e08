import AlertClient

/// Draws the open alert the way UIKit would: an alert as a centred box with its buttons in a row (the cancel
/// button left-most); an action sheet anchored at the bottom with its buttons stacked and the cancel button in a
/// box of its own below. Destructive buttons are red, the focused one is in reverse video, secure text is masked.
enum AlertBoxRenderer {
    /// Widest the text inside a box gets before the message wraps.
    static let preferredWidth = 56
    /// Widest a message of several lines (drawn as written, such as JSON) makes the box before its lines wrap.
    static let preformattedWidth = 96

    static func draw(_ open: OpenAlert, into canvas: inout Canvas, rows: Range<Int>, glyphs: Glyphs) {
        if open.isActionSheet {
            drawActionSheet(open, into: &canvas, rows: rows, glyphs: glyphs)
        } else {
            drawAlert(open, into: &canvas, rows: rows, glyphs: glyphs)
        }
    }

    // MARK: alert

    /// What an alert box is made of, apart from its message: measured once for drawing and for scrolling.
    private struct AlertFrame {
        var inner: Int
        var labels: [String]
        var buttonRows: [[String]]
        var title: [String]
        /// Rows taken by everything but the message.
        var fixed: Int

        var measure: (inner: Int, fixed: Int) { (inner, fixed) }
    }

    private static func alertFrame(_ open: OpenAlert, columns: Int, ellipsis: String) -> AlertFrame {
        let alert = open.alert
        let labels = open.buttons.enumerated().map { label(position: $0.offset, $0.element, ellipsis: ellipsis) }
        let rowWidth = labels.map(DisplayWidth.of).reduce(0, +) + 3 * max(labels.count - 1, 0)
        let inner = innerWidth(for: alert, wanting: max(rowWidth, alert.fields.isEmpty ? 0 : 34), columns: columns)
        let buttonRows = pack(labels, width: inner)
        let title = titleLines(alert.title, width: inner, ellipsis: ellipsis)
        let fixed = 2 + title.count + (alert.fields.isEmpty ? 0 : alert.fields.count + 1) + 1 + buttonRows.count
        return AlertFrame(inner: inner, labels: labels, buttonRows: buttonRows, title: title, fixed: fixed)
    }

    /// The open alert's message as it is drawn on a screen of `columns`, the box having `rows` to stand in.
    static func messageLayout(for open: OpenAlert, columns: Int, rows: Int, glyphs: Glyphs) -> MessageLayout {
        let (inner, fixed) = if open.isActionSheet {
            sheetFrame(open, columns: columns, ellipsis: glyphs.ellipsis)
        } else {
            alertFrame(open, columns: columns, ellipsis: glyphs.ellipsis).measure
        }
        return MessageLayout(open.alert.message, width: inner, room: rows - fixed, offset: open.messageOffset,
                             glyphs: glyphs)
    }

    private static func drawAlert(_ open: OpenAlert, into canvas: inout Canvas, rows: Range<Int>, glyphs: Glyphs) {
        let alert = open.alert
        let frame = alertFrame(open, columns: canvas.columns, ellipsis: canvas.ellipsis)
        let inner = frame.inner
        let message = MessageLayout(alert.message, width: inner, room: rows.count - frame.fixed,
                                    offset: open.messageOffset, glyphs: glyphs)
        let height = frame.fixed + message.lines.count
        let width = inner + 4
        let top = rows.lowerBound + max(0, (rows.count - height) / 2)
        let left = max(0, (canvas.columns - width) / 2)
        canvas.box(row: top, column: left, height: height, width: width, glyphs: glyphs)
        var row = top + 1
        row = drawHeading(frame.title, message, source: alert.message, into: &canvas, row: row, left: left + 2,
                          width: inner)
        if !alert.fields.isEmpty {
            row += 1
            for field in alert.fields {
                drawField(field, open, into: &canvas, row: row, left: left + 2, width: inner, glyphs: glyphs)
                row += 1
            }
        }
        canvas.divider(row: row, column: left, width: width, glyphs: glyphs)
        row += 1
        var position = 0
        for line in frame.buttonRows {
            let lineWidth = line.map(DisplayWidth.of).reduce(0, +) + 3 * (line.count - 1)
            var column = left + 2 + (inner - lineWidth) / 2
            for text in line {
                canvas.text(text, row: row, column: column, style: style(open, position: position))
                column += DisplayWidth.of(text) + 3
                position += 1
            }
            row += 1
        }
    }

    private static func drawField(
        _ field: RemoteField, _ open: OpenAlert, into canvas: inout Canvas, row: Int, left: Int, width: Int,
        glyphs: Glyphs
    ) {
        let focused = open.focus == .field(field.index)
        let bracketStyle = focused ? TextStyle.bold.colored(.cyan) : .dim
        canvas.text("[", row: row, column: left, style: bracketStyle)
        canvas.text("]", row: row, column: left + width - 1, style: bracketStyle)
        let room = width - 3
        var caret = left + 1
        if let text = open.text(ofField: field.index) {
            // Secure text is never drawn: one mask glyph per character typed.
            let shown = field.secure ? String(repeating: glyphs.mask, count: text.count) : text
            let tail = tail(of: shown, fitting: room)
            canvas.text(tail, row: row, column: left + 1, style: .plain)
            caret += DisplayWidth.of(tail)
        } else {
            let placeholder = field.placeholder.isEmpty ? (field.secure ? "secret" : "text") : field.placeholder
            canvas.text(placeholder, row: row, column: left + 1, width: room, style: .dim)
        }
        if focused { canvas.cursor = Canvas.Position(row: row, column: caret) }
    }

    // MARK: shared

    /// Title (bold, centred) and message lines (centred, or as written when it has several lines, the "more
    /// lines" mark dim); returns the next row.
    static func drawHeading(
        _ title: [String], _ message: MessageLayout, source: String, into canvas: inout Canvas, row: Int, left: Int,
        width: Int
    ) -> Int {
        var row = row
        for line in title {
            canvas.centered(line, row: row, column: left, width: width, style: .bold)
            row += 1
        }
        for (position, line) in message.lines.enumerated() {
            if position == message.markIndex {
                canvas.text(line, row: row, column: left, width: width, style: TextStyle.dim.colored(.cyan))
                row += 1
                continue
            }
            let column = message.preformatted ? left : left + (width - min(DisplayWidth.of(line), width)) / 2
            canvas.text(line, row: row, column: column, width: width - (column - left))
            drawLinks(in: line, source: source, row: row, column: column, into: &canvas)
            row += 1
        }
        return row
    }

    /// Columns inside the box: enough for the title, the message up to `preferredWidth` (up to
    /// `preformattedWidth` for a message of several lines, drawn as written), and `wanting`.
    static func innerWidth(for alert: RemoteAlert, wanting: Int, columns: Int) -> Int {
        let messageWidth = alert.message.split(separator: "\n").map { DisplayWidth.of(String($0)) }.max() ?? 0
        let messageCap = alert.message.contains("\n") ? preformattedWidth : preferredWidth
        let titleWidth = DisplayWidth.of(alert.title)
        // A long word (a URL) widens the box, so that it is not cut.
        let longestWord = (alert.title + " " + alert.message).split(whereSeparator: { $0 == " " || $0 == "\n" })
            .map { DisplayWidth.of(String($0)) }.max() ?? 0
        let wanted = max(min(titleWidth, preferredWidth), min(messageWidth, messageCap), wanting, longestWord, 24)
        return max(min(wanted, columns - 6, 100), 10)
    }

    /// The title wrapped to `width`, at most three lines.
    static func titleLines(_ title: String, width: Int, ellipsis: String) -> [String] {
        guard !title.isEmpty else { return [] }
        let lines = DisplayWidth.wrap(title, columns: width, ellipsis: ellipsis)
        return clip(lines, to: 3, width: width, ellipsis: ellipsis)
    }

    /// The message wrapped to `width`, at most `room` lines (the last one ending in an ellipsis when cut).
    static func messageLines(_ message: String, width: Int, room: Int, ellipsis: String) -> [String] {
        guard !message.isEmpty else { return [] }
        let lines = DisplayWidth.wrap(message, columns: width, ellipsis: ellipsis)
        return clip(lines, to: max(room, 1), width: width, ellipsis: ellipsis)
    }

    /// At most `count` of `lines`, the last one ending in an ellipsis when some were left out.
    private static func clip(_ lines: [String], to count: Int, width: Int, ellipsis: String) -> [String] {
        guard lines.count > count else { return lines }
        var kept = Array(lines.prefix(count))
        kept[count - 1] = DisplayWidth.prefix(kept[count - 1] + " " + ellipsis, fitting: width, ellipsis: ellipsis)
        return kept
    }

    /// `[1 Cancel]`: the number chooses it.
    static func label(position: Int, _ button: RemoteButton, ellipsis: String) -> String {
        let number = position < 9 ? "\(position + 1) " : ""
        return "[\(number)\(DisplayWidth.prefix(button.title, fitting: 60, ellipsis: ellipsis))]"
    }

    static func style(_ open: OpenAlert, position: Int) -> TextStyle {
        let button = open.buttons[position]
        var style = TextStyle.plain
        if button.isDestructive { style = style.colored(.red) }
        if button.isCancel { style = style.emboldened() }
        return style.reversed(open.focus == .button(position))
    }

    /// Labels packed into rows of at most `width` columns, three spaces apart.
    private static func pack(_ labels: [String], width: Int) -> [[String]] {
        var rows: [[String]] = []
        var current: [String] = []
        var used = 0
        for label in labels {
            let labelWidth = DisplayWidth.of(label)
            if !current.isEmpty, used + 3 + labelWidth > width {
                rows.append(current)
                current = []
                used = 0
            }
            used += (current.isEmpty ? 0 : 3) + labelWidth
            current.append(label)
        }
        if !current.isEmpty { rows.append(current) }
        return rows
    }

    /// The end of `text` that fits in `columns` (the caret stays in view while typing).
    private static func tail(of text: String, fitting columns: Int) -> String {
        var result = ""
        var used = 0
        for character in text.reversed() {
            let width = DisplayWidth.of(character)
            if used + width > columns { break }
            result.insert(character, at: result.startIndex)
            used += width
        }
        return result
    }
}
