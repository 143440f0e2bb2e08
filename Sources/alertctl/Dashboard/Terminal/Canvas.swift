/// A screen's worth of styled text, built by the pure renderers and drawn by `Terminal`.
///
/// Text is clipped to the canvas; later text overwrites earlier text, as on a real screen. Rendering into a canvas
/// keeps the layout free of curses, so it reads (and could be tested) as plain Swift.
struct Canvas: Sendable {
    /// A run of text at a position.
    struct Span: Sendable, Equatable {
        var row: Int
        var column: Int
        var text: String
        var style: TextStyle
        /// Where the text links to (a URL), drawn as an OSC 8 hyperlink where the terminal supports it.
        var link: String?
    }

    /// A cell on screen.
    struct Position: Sendable, Equatable {
        var row: Int
        var column: Int
    }

    let rows: Int
    let columns: Int
    /// Ends text cut to fit.
    let ellipsis: String
    private(set) var spans: [Span] = []
    /// Where the terminal shows its cursor (in a text field); `nil` hides it.
    var cursor: Position?

    init(rows: Int, columns: Int, ellipsis: String = "…") {
        self.rows = max(rows, 0)
        self.columns = max(columns, 0)
        self.ellipsis = ellipsis
    }

    /// Writes `text` at `row`, `column`, cut to `width` columns (and to the canvas) with an ellipsis; `link` makes
    /// it a hyperlink to that URL.
    mutating func text(
        _ text: String, row: Int, column: Int, width: Int? = nil, style: TextStyle = .plain, link: String? = nil
    ) {
        guard row >= 0, row < rows, column >= 0, column < columns, !text.isEmpty else { return }
        let room = min(width ?? columns, columns - column)
        let clipped = DisplayWidth.prefix(Self.printable(text), fitting: room, ellipsis: ellipsis)
        guard !clipped.isEmpty else { return }
        spans.append(Span(row: row, column: column, text: clipped, style: style, link: link))
    }

    /// Writes `text` centred between `column` and `column + width`.
    mutating func centered(_ text: String, row: Int, column: Int, width: Int, style: TextStyle = .plain) {
        let textWidth = min(DisplayWidth.of(text), width)
        self.text(text, row: row, column: column + (width - textWidth) / 2, width: width, style: style)
    }

    /// Blanks a rectangle (in `style`, which matters for reverse video).
    mutating func fill(row: Int, column: Int, height: Int, width: Int, style: TextStyle = .plain) {
        let left = max(column, 0)
        let right = min(column + width, columns)
        guard right > left else { return }
        let blank = String(repeating: " ", count: right - left)
        for line in max(row, 0)..<max(min(row + height, rows), max(row, 0)) {
            spans.append(Span(row: line, column: left, text: blank, style: style))
        }
    }

    /// Draws a frame with `glyphs`' line characters around a rectangle and blanks its inside.
    mutating func box(row: Int, column: Int, height: Int, width: Int, glyphs: Glyphs, style: TextStyle = .plain) {
        guard height >= 2, width >= 2 else { return }
        fill(row: row, column: column, height: height, width: width)
        let inner = String(repeating: glyphs.horizontal, count: width - 2)
        text(glyphs.topLeft + inner + glyphs.topRight, row: row, column: column, style: style)
        for line in row + 1..<row + height - 1 {
            text(glyphs.vertical, row: line, column: column, style: style)
            text(glyphs.vertical, row: line, column: column + width - 1, style: style)
        }
        text(glyphs.bottomLeft + inner + glyphs.bottomRight, row: row + height - 1, column: column, style: style)
    }

    /// A horizontal line across a box of `width` at `row`, joined to its sides.
    mutating func divider(row: Int, column: Int, width: Int, glyphs: Glyphs, style: TextStyle = .plain) {
        guard width >= 2 else { return }
        let inner = String(repeating: glyphs.horizontal, count: width - 2)
        text(glyphs.teeLeft + inner + glyphs.teeRight, row: row, column: column, style: style)
    }

    /// A horizontal rule across the whole canvas, with an optional label near its left end.
    mutating func rule(row: Int, label: String = "", glyphs: Glyphs, style: TextStyle = .dim) {
        text(String(repeating: glyphs.horizontal, count: columns), row: row, column: 0, style: style)
        if !label.isEmpty {
            text(" \(label) ", row: row, column: 2, style: style.emboldened())
        }
    }

    /// Control characters (a newline in a title, a tab, ESC; `VisibleText.isControl`) would move the curses cursor
    /// or command the terminal: shown as spaces.
    private static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: VisibleText.isControl) else { return text }
        return String(text.unicodeScalars.map { VisibleText.isControl($0) ? " " : Character($0) })
    }
}
