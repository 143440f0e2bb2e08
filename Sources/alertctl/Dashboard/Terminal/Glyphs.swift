/// The characters drawn for frames, masks and markers: Unicode in a UTF-8 locale, ASCII otherwise.
struct Glyphs: Sendable, Equatable {
    var horizontal: String
    var vertical: String
    var topLeft: String
    var topRight: String
    var bottomLeft: String
    var bottomRight: String
    var teeLeft: String
    var teeRight: String
    /// Drawn once per character typed into a secure field, in place of the character.
    var mask: String
    /// Marks the selected row of a list.
    var pointer: String
    /// Marks an alert marked to be answered together with others (Space, then `a`).
    var mark: String
    var arrow: String
    var ellipsis: String
    var bullet: String
    var upDown: String
    var leftRight: String
    var upArrow: String
    var downArrow: String

    static let unicode = Glyphs(
        horizontal: "─", vertical: "│", topLeft: "┌", topRight: "┐", bottomLeft: "└", bottomRight: "┘",
        teeLeft: "├", teeRight: "┤", mask: "•", pointer: "▸", mark: "✓", arrow: "→", ellipsis: "…", bullet: "·",
        upDown: "↑↓", leftRight: "←→", upArrow: "↑", downArrow: "↓")

    static let ascii = Glyphs(
        horizontal: "-", vertical: "|", topLeft: "+", topRight: "+", bottomLeft: "+", bottomRight: "+",
        teeLeft: "+", teeRight: "+", mask: "*", pointer: ">", mark: "+", arrow: "->", ellipsis: "...", bullet: "-",
        upDown: "Up/Down", leftRight: "Left/Right", upArrow: "^", downArrow: "v")
}
