import Foundation

/// Unbuffered writes to standard output and standard error, so lines appear at once even in a pipe.
enum Console {
    /// Writes `text` and a newline to standard output.
    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Writes `text` and a newline to standard error.
    static func err(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Whether standard error is a terminal (progress notes go there only then).
    static var stderrIsTerminal: Bool {
        isatty(2) == 1
    }
}
