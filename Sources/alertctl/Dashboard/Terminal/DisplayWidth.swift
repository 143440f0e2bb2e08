import CNCurses

/// Terminal column widths of text: CJK and most emoji take two columns, combining marks none.
/// Uses `wcwidth`, so it is right once `setlocale` has chosen a UTF-8 locale (the `Terminal` does that).
enum DisplayWidth {
    /// Columns `character` takes.
    static func of(_ character: Character) -> Int {
        var width = 0
        for scalar in character.unicodeScalars {
            let columns = Int(cncurses_wcwidth(wchar_t(bitPattern: scalar.value)))
            // Non-printable scalars (-1) are drawn by curses as something one column wide, or skipped.
            width += columns < 0 ? (scalar.value < 0x20 ? 0 : 1) : columns
        }
        // A cluster of several scalars (an emoji sequence, a flag) is drawn as one glyph.
        return character.unicodeScalars.count > 1 ? min(width, 2) : width
    }

    /// Columns `text` takes.
    static func of(_ text: String) -> Int {
        text.reduce(0) { $0 + of($1) }
    }

    /// The longest prefix of `text` that fits in `columns`; ends in `ellipsis` when something was cut.
    static func prefix(_ text: String, fitting columns: Int, ellipsis: String = "…") -> String {
        guard columns > 0 else { return "" }
        if of(text) <= columns { return text }
        let room = columns - of(ellipsis)
        var result = ""
        var used = 0
        for character in text {
            let width = of(character)
            if used + width > room { break }
            result.append(character)
            used += width
        }
        return room > 0 ? result + ellipsis : result
    }

    /// `text` broken into lines of at most `columns`, at spaces only, honouring its newlines. A word is never
    /// broken in the middle (a URL must stay whole to be copied): one longer than a line gets a line of its own,
    /// cut at the end with `ellipsis`.
    static func wrap(_ text: String, columns: Int, ellipsis: String = "…") -> [String] {
        guard columns > 0 else { return [] }
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: true) {
                let word = String(word)
                let candidate = line.isEmpty ? word : line + " " + word
                if of(candidate) <= columns {
                    line = candidate
                    continue
                }
                if !line.isEmpty { lines.append(line) }
                if of(word) > columns {
                    lines.append(prefix(word, fitting: columns, ellipsis: ellipsis))
                    line = ""
                } else {
                    line = word
                }
            }
            if !line.isEmpty || lines.isEmpty || paragraph.isEmpty { lines.append(line) }
        }
        return lines
    }
}
