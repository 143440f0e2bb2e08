/// A key press, decoded from curses' `wget_wch`.
enum Key: Sendable, Equatable {
    /// A printable character (typed text, digits, `q`).
    case character(Character)
    case enter
    case escape
    case tab
    case backTab
    case backspace
    case delete
    case up
    case down
    case left
    case right
    case home
    case end
    case pageUp
    case pageDown
    /// Control plus a letter (`control("l")` for Ctrl-L), other than those above.
    case control(Character)
    /// Anything else (function keys, mouse): ignored.
    case other(Int32)

    /// The digit 1…9 this key is, if any.
    var digit: Int? {
        guard case .character(let character) = self, let value = character.wholeNumberValue,
              character.isASCII, (1...9).contains(value) else { return nil }
        return value
    }
}
