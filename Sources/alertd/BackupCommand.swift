import AlertJournal
import Foundation

/// `alertd backup --data-dir DIR FILE`: an online backup of the journal in DIR to FILE, taken while alertd may be
/// running (SQLite's backup API: a consistent snapshot of the last commit).
enum BackupCommand {
    static let usage = """
        usage: alertd backup --data-dir DIR FILE
          Copies the journal in DIR (ALERTD_DATA_DIR when --data-dir is not given) to FILE, replacing it, while
          alertd may be running. To restore: stop alertd, copy FILE to DIR/alertd.sqlite3, remove
          DIR/alertd.sqlite3-wal and DIR/alertd.sqlite3-shm, start alertd.

        """

    /// Runs the subcommand with the arguments after `backup`; returns the exit status (0, 1 when the backup failed,
    /// 64 for a usage error).
    static func run(_ arguments: [String], environment: [String: String]) -> Int32 {
        var directory = environment["ALERTD_DATA_DIR"]
        var file: String?
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            if argument == "-h" || argument == "--help" {
                print(usage, terminator: "")
                return 0
            } else if argument == "--data-dir" {
                guard let value = rest.popFirst() else { return fail("--data-dir needs a directory") }
                directory = value
            } else if argument.hasPrefix("--data-dir=") {
                directory = String(argument.dropFirst("--data-dir=".count))
            } else if argument.hasPrefix("-") {
                return fail("unknown option \(argument)")
            } else if file == nil {
                file = argument
            } else {
                return fail("one FILE only")
            }
        }
        guard let directory, !directory.isEmpty else { return fail("give the data directory: --data-dir DIR") }
        guard let file, !file.isEmpty else { return fail("give the file to write the backup to") }
        do {
            try SQLiteJournal.backup(directory: directory, to: file)
        } catch {
            FileHandle.standardError.write(Data("alertd backup: \(error)\n".utf8))
            return 1
        }
        print("alertd: backed up", directory, "to", file)
        return 0
    }

    private static func fail(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("alertd backup: \(message)\n\(usage)".utf8))
        return 64
    }
}
