extension AlertBoxRenderer {
    /// Draws the URLs in a drawn `line` of a message again, as hyperlinks to the whole URL (also when the line
    /// shows it cut short), so a click opens it and a copy takes all of it.
    /// - Parameters:
    ///   - line: The line as drawn, starting at `column`.
    ///   - source: The whole message, where a cut URL is found whole.
    static func drawLinks(in line: String, source: String, row: Int, column: Int, into canvas: inout Canvas) {
        var offset = 0
        for word in line.split(separator: " ", omittingEmptySubsequences: false) {
            let text = String(word)
            defer { offset += DisplayWidth.of(text) + 1 }
            guard text.hasPrefix("https://") || text.hasPrefix("http://") else { continue }
            // Cut with an ellipsis, or broken across lines in a message drawn as written: link the whole URL.
            let prefix = text.hasSuffix(canvas.ellipsis) ? String(text.dropLast(canvas.ellipsis.count)) : text
            let url = source.split(whereSeparator: { $0 == " " || $0 == "\n" }).first { $0.hasPrefix(prefix) }
                .map(String.init) ?? text
            canvas.text(text, row: row, column: column + offset, style: TextStyle.plain.underlined(), link: url)
        }
    }
}
