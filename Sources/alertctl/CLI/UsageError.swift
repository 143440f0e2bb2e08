/// The command line is wrong: printed with a hint to `--help`, exit code 2.
struct UsageError: Error, Sendable {
    /// What is wrong, such as "unknown option '--buton'".
    let message: String

    init(_ message: String) {
        self.message = message
    }
}
