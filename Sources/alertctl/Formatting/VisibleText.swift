/// Text from the server (what producers and responders wrote) made safe to print to a terminal.
///
/// A producer's ESC, BEL or backspace would otherwise reach the responder's terminal raw: set the window title,
/// clear the screen, move the cursor back over a line, hide text. Control characters are shown escaped instead,
/// as `git` and `less -R` do: `\e`, `\a`, `\b`, `\t`, `\n`, `\r`, `\x7F` and `\u{9B}` (C1 controls, and the
/// Unicode bidirectional overrides and isolates, which reorder what follows). Backslashes are left as they are:
/// the text is for reading, and `--json` prints it exactly.
enum VisibleText {
    /// `text` with every control character shown escaped (newlines too, so a value stays on its line).
    static func escaped(_ text: String) -> String {
        escaped(text, keepingNewlines: false)
    }

    /// What alertctl itself writes: its own line breaks kept, every other control character escaped.
    static func lines(_ text: String) -> String {
        escaped(text, keepingNewlines: true)
    }

    /// Whether a terminal could take `scalar` as a command rather than a character to draw: C0 and C1 controls,
    /// DEL, and the bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069).
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    private static func escaped(_ text: String, keepingNewlines: Bool) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var visible = ""
        for scalar in text.unicodeScalars {
            guard isControl(scalar), !(keepingNewlines && scalar == "\n") else {
                visible.unicodeScalars.append(scalar)
                continue
            }
            visible += name(of: scalar)
        }
        return visible
    }

    private static func name(of scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\u{1B}": return "\\e"
        case "\u{07}": return "\\a"
        case "\u{08}": return "\\b"
        case "\t": return "\\t"
        case "\n": return "\\n"
        case "\r": return "\\r"
        default:
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return scalar.value < 0x80 ? "\\x" + (hex.count < 2 ? "0" + hex : hex) : "\\u{\(hex)}"
        }
    }
}
