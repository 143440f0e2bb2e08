/// Draws the demo: the ViewController screen, the PopView over it, the debug label and the status line.
enum DemoRenderer {
    static func render(_ state: DemoState) -> Canvas? {
        guard let screen = state.screen else { return nil }
        let glyphs = screen.glyphs
        var canvas = Canvas(rows: screen.rows, columns: screen.columns, ellipsis: glyphs.ellipsis)
        canvas.text("alertctl demo", row: 0, column: 1, style: .bold)
        canvas.text(state.serverURL, row: 0, column: 16, style: .dim)
        canvas.rule(row: 1, label: "ViewController", glyphs: glyphs)
        let focus = state.presented == .viewController && state.outstanding == nil ? state.focus : nil
        for (position, title) in DemoState.rootButtons.enumerated() {
            drawButton(position + 1, title, focused: focus == position, into: &canvas, row: 3 + position, column: 4)
        }
        canvas.text("debugLabel: ", row: 6, column: 4, style: .dim)
        canvas.text(state.debugLabel, row: 6, column: 16, style: .bold)
        if state.presented == .popView {
            drawPopView(state, into: &canvas, glyphs: glyphs)
        }
        drawStatus(state, into: &canvas, row: screen.rows - 2, glyphs: glyphs)
        canvas.text(hints(for: state, glyphs: glyphs), row: screen.rows - 1, column: 1, style: .dim)
        return canvas
    }

    private static func drawPopView(_ state: DemoState, into canvas: inout Canvas, glyphs: Glyphs) {
        let top = 2
        let height = max(canvas.rows - 4 - top, 6)
        canvas.box(row: top, column: 2, height: height, width: canvas.columns - 4, glyphs: glyphs)
        canvas.text(" PopView ", row: top, column: 4, style: .bold)
        canvas.text("The secret: every alert here is a resource on alertd.", row: top + 2, column: 5)
        drawButton(1, DemoState.popViewButton, focused: state.outstanding == nil, into: &canvas, row: top + 4,
                   column: 5)
    }

    private static func drawButton(
        _ number: Int, _ title: String, focused: Bool, into canvas: inout Canvas, row: Int, column: Int
    ) {
        let label = "[ \(number)  \(title) ]"
        canvas.text(label, row: row, column: column, style: TextStyle.plain.reversed(focused))
    }

    private static func drawStatus(_ state: DemoState, into canvas: inout Canvas, row: Int, glyphs: Glyphs) {
        if let outstanding = state.outstanding {
            let to = "(\(outstanding.prompt.input.title ?? "") to presenter \(outstanding.prompt.presenter))"
            canvas.text("waiting for an answer in alertctl dashboard\(glyphs.ellipsis) \(to)", row: row, column: 1,
                        style: TextStyle.plain.colored(.yellow))
        } else if let notice = state.notice {
            let color: TextStyle.Color = notice.tone == .warning ? .yellow : .green
            canvas.text(notice.text, row: row, column: 1, style: TextStyle.plain.colored(color))
        }
    }

    private static func hints(for state: DemoState, glyphs: Glyphs) -> String {
        if state.outstanding != nil { return "answer the alert in alertctl dashboard (or curl)  q quit" }
        switch state.presented {
        case .viewController: return "1/2 or \(glyphs.upDown) + Enter press  q quit"
        case .popView: return "1 or Enter: Dismiss  q quit"
        }
    }
}
