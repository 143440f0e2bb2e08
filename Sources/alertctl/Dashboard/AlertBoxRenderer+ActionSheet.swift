import AlertClient

extension AlertBoxRenderer {
    /// An action sheet, UIKit style: anchored at the bottom of `rows`, title and message over a divider, the
    /// buttons stacked one per line, and the cancel button in a box of its own below.
    static func drawActionSheet(
        _ open: OpenAlert, into canvas: inout Canvas, rows: Range<Int>, glyphs: Glyphs
    ) {
        let alert = open.alert
        let buttons = open.buttons
        let labels = buttons.enumerated().map { label(position: $0.offset, $0.element, ellipsis: canvas.ellipsis) }
        let cancelCount = buttons.last?.isCancel == true ? 1 : 0
        let (inner, fixed) = sheetFrame(open, columns: canvas.columns, ellipsis: canvas.ellipsis)
        let hasHeading = !alert.title.isEmpty || !alert.message.isEmpty
        let mainButtons = buttons.count - cancelCount
        let title = titleLines(alert.title, width: inner, ellipsis: canvas.ellipsis)
        let message = MessageLayout(alert.message, width: inner, room: rows.count - fixed, offset: open.messageOffset,
                                    glyphs: glyphs)
        let mainHeight = fixed - cancelCount * 3 + message.lines.count
        let width = inner + 4
        let left = max(0, (canvas.columns - width) / 2)
        let top = max(rows.lowerBound, rows.upperBound - mainHeight - cancelCount * 3)
        canvas.box(row: top, column: left, height: mainHeight, width: width, glyphs: glyphs)
        var row = drawHeading(title, message, source: alert.message, into: &canvas, row: top + 1, left: left + 2,
                              width: inner)
        if hasHeading {
            canvas.divider(row: row, column: left, width: width, glyphs: glyphs)
            row += 1
        }
        for position in 0..<mainButtons {
            canvas.centered(labels[position], row: row, column: left + 2, width: inner,
                            style: style(open, position: position))
            row += 1
        }
        if cancelCount == 1 {
            row = top + mainHeight
            canvas.box(row: row, column: left, height: 3, width: width, glyphs: glyphs)
            canvas.centered(labels[buttons.count - 1], row: row + 1, column: left + 2, width: inner,
                            style: style(open, position: buttons.count - 1))
        }
    }

    /// An action sheet's inner width and the rows it takes besides its message.
    static func sheetFrame(_ open: OpenAlert, columns: Int, ellipsis: String) -> (inner: Int, fixed: Int) {
        let alert = open.alert
        let buttons = open.buttons
        let labels = buttons.enumerated().map { label(position: $0.offset, $0.element, ellipsis: ellipsis) }
        let cancelCount = buttons.last?.isCancel == true ? 1 : 0
        let inner = innerWidth(for: alert, wanting: labels.map(DisplayWidth.of).max() ?? 0, columns: columns)
        let hasHeading = !alert.title.isEmpty || !alert.message.isEmpty
        let title = titleLines(alert.title, width: inner, ellipsis: ellipsis)
        return (inner, 2 + title.count + (hasHeading ? 1 : 0) + buttons.count - cancelCount + cancelCount * 3)
    }
}
