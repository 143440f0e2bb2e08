import AlertClient

/// Draws a `DashboardState` into a `Canvas`: header, pending list grouped by presenter, log pane, status line,
/// key hints, and the open alert on top. Pure; `Terminal` puts the canvas on screen.
enum DashboardRenderer {
    /// Below this the dashboard only says the terminal is too small.
    static let minimumRows = 10
    static let minimumColumns = 40

    /// The screen for `state`, or `nil` before the terminal is ready.
    static func render(_ state: DashboardState) -> Canvas? {
        guard let screen = state.screen else { return nil }
        let glyphs = screen.glyphs
        var canvas = Canvas(rows: screen.rows, columns: screen.columns, ellipsis: glyphs.ellipsis)
        guard screen.rows >= minimumRows, screen.columns >= minimumColumns else {
            canvas.text("terminal too small (\(screen.columns)x\(screen.rows); need \(minimumColumns)x\(minimumRows))",
                        row: 0, column: 0)
            canvas.text("q quits", row: 1, column: 0, style: .dim)
            return canvas
        }
        let layout = layout(rows: screen.rows)
        drawHeader(state, into: &canvas, glyphs: glyphs)
        canvas.rule(row: 1, label: "pending", glyphs: glyphs)
        let marks = DashboardListRenderer.draw(state, into: &canvas, rows: layout.list, glyphs: glyphs)
        drawDetail(state, into: &canvas, row: layout.detail, glyphs: glyphs)
        drawLog(state.log, into: &canvas, top: layout.logTop, bottom: screen.rows - 2, glyphs: glyphs)
        if marks.above > 0 {
            canvas.text(" \(glyphs.upArrow) \(marks.above) more above ", row: 1,
                        column: canvas.columns - 18 - String(marks.above).count, style: TextStyle.bold.colored(.cyan))
        }
        if marks.below > 0 {
            canvas.text(" \(glyphs.downArrow) \(marks.below) more below ", row: layout.logTop,
                        column: canvas.columns - 18 - String(marks.below).count, style: TextStyle.bold.colored(.cyan))
        }
        drawStatus(state, into: &canvas, row: screen.rows - 2, glyphs: glyphs)
        canvas.text(hints(for: state, glyphs: glyphs), row: screen.rows - 1, column: 1, style: .dim)
        if let open = state.open {
            AlertBoxRenderer.draw(open, into: &canvas, rows: 1..<screen.rows - 2, glyphs: glyphs)
        }
        if let proposal = state.open?.proposal { drawProposal(proposal, into: &canvas, glyphs: glyphs) }
        if state.showsHelp { drawHelp(into: &canvas, glyphs: glyphs, rules: state.mayMakeRules) }
        return canvas
    }

    /// Where things go on a screen of `rows`: the list's rows, the detail line under it, and the log's rule.
    static func layout(rows: Int) -> (list: Range<Int>, detail: Int, logTop: Int) {
        let logHeight = max(4, (rows - 3) / 3)
        let logTop = rows - 2 - logHeight
        return (2..<max(logTop - 1, 2), logTop - 1, logTop)
    }

    private static func drawHeader(_ state: DashboardState, into canvas: inout Canvas, glyphs: Glyphs) {
        let total = "\(state.alerts.count)\(state.listIsTruncated ? "+" : "")"
        var count = state.search.isEmpty ? "\(total) pending" : "\(state.shown.count) of \(total) pending"
        if !state.marked.isEmpty { count += " \(glyphs.bullet) \(state.marked.count) marked" }
        let (connection, color): (String, TextStyle.Color) = switch state.connection {
        case .connecting: ("connecting", .yellow)
        case .connected: ("connected", .green)
        case .reconnecting: ("reconnecting", .yellow)
        }
        let right = canvas.columns - DisplayWidth.of("\(count)  \(connection)") - 1
        canvas.text(count, row: 0, column: right, style: .bold)
        canvas.text(connection, row: 0, column: right + DisplayWidth.of(count) + 2, style: TextStyle.plain.colored(color))
        let title = "alertctl dashboard"
        canvas.text(title, row: 0, column: 1, width: right - 2, style: .bold)
        var scope = state.presenter.map { " \(glyphs.bullet) presenter \($0)" } ?? ""
        if !state.search.isEmpty { scope += " \(glyphs.bullet) /\(state.search)" }
        let column = title.count + 3
        canvas.text(state.serverURL + scope, row: 0, column: column, width: right - column - 2, style: .dim)
    }

    private static func drawLog(
        _ log: [LogEntry], into canvas: inout Canvas, top: Int, bottom: Int, glyphs: Glyphs
    ) {
        canvas.rule(row: top, label: "answered", glyphs: glyphs)
        guard !log.isEmpty else {
            canvas.text("answers appear here", row: top + 1, column: 3, style: .dim)
            return
        }
        for (row, entry) in zip(top + 1..<bottom, log.reversed()) {
            var column = 1
            func put(_ text: String, _ style: TextStyle = .plain) {
                canvas.text(text, row: row, column: column, style: style)
                column += DisplayWidth.of(text) + 2
            }
            put(entry.time, .dim)
            put(DisplayWidth.prefix(entry.title, fitting: 40, ellipsis: glyphs.ellipsis), .bold)
            let buttonStyle: TextStyle = entry.buttonStyle == "destructive" ? TextStyle.plain.colored(.red) : .plain
            put("\(glyphs.arrow) \(entry.button)", buttonStyle)
            if !entry.note.isEmpty { put(entry.note, .dim) }
        }
    }

    private static func drawStatus(_ state: DashboardState, into canvas: inout Canvas, row: Int, glyphs: Glyphs) {
        if let prompt = state.prompt {
            let label = prompt.kind == .search ? "/" : "presenter (empty for all): "
            canvas.text(label, row: row, column: 1, style: .bold)
            let column = 1 + DisplayWidth.of(label)
            canvas.text(prompt.text, row: row, column: column, width: canvas.columns - column - 1)
            canvas.cursor = Canvas.Position(row: row, column: min(column + DisplayWidth.of(prompt.text),
                                                                  canvas.columns - 1))
            return
        }
        if let batch = state.batch {
            let (text, style): (String, TextStyle) = if let button = batch.confirming {
                ("\(button.title) is destructive: press y to answer the \(batch.alerts.count) marked with it, any "
                    + "other key to go back", TextStyle.bold.colored(.red))
            } else {
                ("answer the \(batch.alerts.count) marked with: " + batch.buttons.enumerated().map {
                    "[\($0.offset + 1) \($0.element.title)]"
                }.joined(separator: " ") + batch.note, .bold)
            }
            canvas.text(text, row: row, column: 1, width: canvas.columns - 2, style: style)
            return
        }
        let (text, style): (String, TextStyle) =
            if let notice = state.notice {
                (notice.text, style(of: notice.tone))
            } else {
                switch state.connection {
                case .connecting:
                    ("connecting to \(state.serverURL)\(glyphs.ellipsis)", TextStyle.plain.colored(.yellow))
                case .reconnecting(let reason, let retryIn):
                    ("reconnecting to \(state.serverURL)\(glyphs.ellipsis) "
                        + "(\(reason); next try in \(seconds(retryIn)))", TextStyle.plain.colored(.yellow))
                case .connected:
                    if state.open?.sending == true {
                        ("sending the answer\(glyphs.ellipsis)", .dim)
                    } else if let button = state.open?.confirming {
                        ("\(button.title) is destructive: press Enter (or y) again to send it, "
                            + "any other key to go back", TextStyle.bold.colored(.red))
                    } else {
                        ("connected to \(state.serverURL)", TextStyle.dim.colored(.green))
                    }
                }
            }
        canvas.text(text, row: row, column: 1, width: canvas.columns - 2, style: style)
    }

    private static func style(of tone: Notice.Tone) -> TextStyle {
        switch tone {
        case .info: .plain
        case .success: TextStyle.plain.colored(.green)
        case .warning: TextStyle.bold.colored(.yellow)
        }
    }

    private static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return "\(milliseconds / 1000).\(milliseconds % 1000 / 100) s"
    }

    /// The key hints for what is on screen.
    static func hints(for state: DashboardState, glyphs: Glyphs) -> String {
        let separator = "  "
        if state.showsHelp { return "any key closes the help" }
        if let prompt = state.prompt {
            return prompt.kind == .search ? "type to search titles and messages  Enter keep  Esc clear"
                : "Enter apply  Esc cancel  Ctrl-U clear"
        }
        if let batch = state.batch {
            return batch.confirming == nil
                ? "1-\(min(batch.buttons.count, 9)) answer every marked alert  any other key: back"
                : "y: answer every marked alert  any other key: back"
        }
        guard let open = state.open else {
            let marks = state.marked.isEmpty ? ["Space mark"] : ["Space mark", "a answer marked", "Esc unmark"]
            return (["\(glyphs.upDown) select", "PgUp/PgDn page", "Enter open"] + marks
                + ["/ search", "p presenter", "? help", "q quit"]).joined(separator: separator)
        }
        if open.proposal != nil {
            return "y: answer and make the rule  any other key: back"
        }
        if let button = open.confirming {
            return "Enter or y: \(button.title)  any other key: back"
        }
        let cancel = open.alert.cancelButton.map { "Esc: \($0.title)" } ?? ""
        let scrolls = state.screen.map {
            AlertBoxRenderer.messageLayout(for: open, columns: $0.columns, rows: $0.rows - 3, glyphs: glyphs)
        }?.markIndex != nil
        let scroll = scrolls ? "PgUp/PgDn scroll" : ""
        switch open.focus {
        case .field(let index):
            let enter = index + 1 < open.alert.fields.count ? "Enter next field"
                : open.defaultButton.map { "Enter: \($0.title)" } ?? ""
            let takes = "type \(open.keyboardRule(ofField: index).hint)"
            return [takes, "Tab/\(glyphs.upDown) move", enter, cancel, scroll, "Ctrl-U clear"]
                .filter { !$0.isEmpty }.joined(separator: separator)
        case .button:
            let count = open.buttons.count
            let numbers = count > 1 ? "1-\(min(count, 9)) choose" : "1 choose"
            let arrows = "\(open.isActionSheet ? glyphs.upDown : glyphs.leftRight) move"
            let tab = open.alert.fields.isEmpty ? "" : "Tab fields"
            let always = state.mayMakeRules ? "Ctrl-A always" : ""
            return [numbers, arrows, "Enter choose", cancel, always, scroll, tab, "q back"].filter { !$0.isEmpty }
                .joined(separator: separator)
        }
    }
}
