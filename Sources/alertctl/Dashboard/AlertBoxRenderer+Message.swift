/// A message as the open alert draws it.
///
/// A message of one line is wrapped at spaces and centred, as UIKit draws it. A message of several lines (a
/// tool's input as pretty-printed JSON, a command and where it runs) is drawn as written: left-aligned, every line
/// break and indentation kept, a line too long wrapped with its continuation indented under it (under the value,
/// after a label such as `"command":`), a word too long
/// broken (never cut: the responder must be able to read all of a command). When it does not fit, the lines that
/// do are shown with a mark that says how many are out of view and that PgUp/PgDn scroll; a short last paragraph
/// (after the last blank line, such as `Session:` and `Directory:` lines) stays in view below the mark.
struct MessageLayout: Equatable {
    /// The lines to draw, the mark among them.
    var lines: [String]
    /// Drawn left-aligned, as written (several lines), rather than centred.
    var preformatted: Bool
    /// Where the "more lines" mark is in `lines`, when some are out of view.
    var markIndex: Int?
    /// The first line of the scrolling part in view, and the largest it may be.
    var offset: Int
    var maxOffset: Int
    /// How many lines PgDn moves.
    var page: Int

    /// The short trailing paragraph kept in view when the rest scrolls holds at most this many lines.
    static let pinnedTailLines = 4

    init(_ message: String, width: Int, room: Int, offset: Int = 0, glyphs: Glyphs) {
        let room = max(room, 1)
        let preformatted = message.contains("\n")
        self.preformatted = preformatted
        markIndex = nil
        maxOffset = 0
        page = room
        self.offset = 0
        guard !message.isEmpty else {
            lines = []
            return
        }
        guard preformatted else {
            lines = AlertBoxRenderer.messageLines(message, width: width, room: room, ellipsis: glyphs.ellipsis)
            return
        }
        let all = Self.wrapPreformatted(message, columns: width)
        guard all.count > room else {
            lines = all
            return
        }
        // A short last paragraph (session, directory) stays below the mark while the rest scrolls.
        var body = all
        var tail: [String] = []
        if let blank = all.lastIndex(where: { $0.allSatisfy(\.isWhitespace) }), all.count - blank - 1 > 0,
           all.count - blank - 1 <= Self.pinnedTailLines, room - (all.count - blank) >= 3 {
            tail = Array(all[(blank + 1)...])
            body = Array(all[..<blank])
        }
        let shown = max(room - 1 - tail.count, 1)
        maxOffset = max(body.count - shown, 0)
        self.offset = min(max(offset, 0), maxOffset)
        page = max(shown - 1, 1)
        let above = self.offset
        let below = body.count - self.offset - shown
        var mark: [String] = []
        if above > 0 { mark.append("\(glyphs.upArrow) \(above) above") }
        if below > 0 { mark.append("\(glyphs.downArrow) \(below) more line\(below == 1 ? "" : "s")") }
        var text = mark.joined(separator: "  ")
        // The keys when they fit (the hints line names them too).
        let keys = above > 0 && below > 0 ? "PgUp/PgDn scroll" : above > 0 ? "PgUp scrolls" : "PgDn scrolls"
        if DisplayWidth.of(text + "  " + keys) <= width { text += "  " + keys }
        lines = Array(body[self.offset..<(self.offset + shown)])
        markIndex = lines.count
        lines.append(DisplayWidth.prefix(text, fitting: width, ellipsis: glyphs.ellipsis))
        lines += tail
    }

    /// `text` as lines of at most `columns`, its line breaks and indentation kept. A longer line breaks at spaces,
    /// its continuation indented under the value when the line starts with a label (a first word ending in `:`),
    /// else two columns deeper than the line; a word longer than a line is broken.
    static func wrapPreformatted(_ text: String, columns: Int) -> [String] {
        guard columns > 0 else { return [] }
        var lines: [String] = []
        for raw in text.replacingOccurrences(of: "\t", with: "    ").split(separator: "\n",
                                                                             omittingEmptySubsequences: false) {
            let line = String(raw)
            guard DisplayWidth.of(line) > columns else {
                lines.append(line)
                continue
            }
            let indent = line.prefix { $0 == " " }.count
            let words = line.dropFirst(indent).split(separator: " ")
            // After a label (`"command":`, `Directory:`) the continuation lines up under its value.
            let label = words.count > 1 && words[0].hasSuffix(":") ? DisplayWidth.of(String(words[0])) + 1 : 2
            let lead = String(repeating: " ", count: min(indent, columns / 2))
            let hang = String(repeating: " ", count: min(indent + label, columns / 2))
            var current = lead
            var hasWord = false
            for word in words {
                let candidate = current + (hasWord ? " " : "") + word
                if DisplayWidth.of(candidate) <= columns {
                    current = candidate
                    hasWord = true
                    continue
                }
                if hasWord {
                    lines.append(current)
                    current = hang + word
                } else {
                    current = candidate
                }
                hasWord = true
                // A word wider than the line is broken across lines, never cut.
                while DisplayWidth.of(current) > columns {
                    let (head, rest) = split(current, fitting: columns)
                    lines.append(head)
                    current = hang + rest
                }
            }
            if hasWord { lines.append(current) }
        }
        return lines
    }

    /// The longest prefix of `text` that fits in `columns` (at least one character), and the rest.
    private static func split(_ text: String, fitting columns: Int) -> (String, String) {
        var used = 0
        var end = text.startIndex
        for index in text.indices {
            let width = DisplayWidth.of(text[index])
            if used + width > columns, end > text.startIndex { break }
            used += width
            end = text.index(after: index)
        }
        return (String(text[..<end]), String(text[end...]))
    }
}
