import Foundation

/// Unbuffered writes to standard output and standard error, so lines appear at once even in a pipe.
///
/// Human-readable text is always made visible (`VisibleText.lines`), to a terminal or not: no control character
/// from the server reaches either stream raw. Only `json` writes exactly, and JSON escapes control characters.
enum Console {
    /// Writes `text` and a newline to standard output, control characters other than its line breaks escaped.
    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data((VisibleText.lines(text) + "\n").utf8))
    }

    /// Writes a line of JSON to standard output exactly as given.
    static func json(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Writes `text` and a newline to standard error, control characters other than its line breaks escaped.
    static func err(_ text: String) {
        FileHandle.standardError.write(Data((VisibleText.lines(text) + "\n").utf8))
    }

    /// Whether standard error is a terminal (progress notes go there only then).
    static var stderrIsTerminal: Bool {
        isatty(2) == 1
    }
}
