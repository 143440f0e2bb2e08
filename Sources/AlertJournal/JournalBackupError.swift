/// Why an online backup failed; the description names the file and SQLite's reason.
public struct JournalBackupError: Error, Sendable, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
