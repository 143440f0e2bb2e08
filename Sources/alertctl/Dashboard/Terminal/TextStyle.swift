/// How a run of text is drawn: a colour and attributes. Pure data; `Terminal` maps it onto curses.
struct TextStyle: Hashable, Sendable {
    /// The foreground colours the dashboard uses, each a curses colour pair over the terminal's background.
    enum Color: Int16, Sendable, CaseIterable {
        case normal = 0
        case red = 1
        case green = 2
        case yellow = 3
        case cyan = 4
    }

    var color: Color = .normal
    var bold = false
    var dim = false
    var reverse = false
    var underline = false

    static let plain = TextStyle()
    static let bold = TextStyle(bold: true)
    static let dim = TextStyle(dim: true)
    static let reverse = TextStyle(reverse: true)

    /// This style with another colour.
    func colored(_ color: Color) -> TextStyle {
        var style = self
        style.color = color
        return style
    }

    /// This style, in reverse video when `on` (how focus and selection are drawn).
    func reversed(_ on: Bool = true) -> TextStyle {
        var style = self
        style.reverse = on
        return style
    }

    /// This style, underlined (how links are drawn).
    func underlined() -> TextStyle {
        var style = self
        style.underline = true
        return style
    }

    /// This style, bold when `on`.
    func emboldened(_ on: Bool = true) -> TextStyle {
        var style = self
        style.bold = on
        return style
    }
}
