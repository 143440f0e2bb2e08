import AlertJournal
import CommandLineText
import Foundation

/// `alertd backup --data-dir DIR FILE` and `alertd restore --data-dir DIR FILE`: the journal in DIR copied to a backup
/// file while alertd may run (SQLite's backup API: a consistent snapshot of the last commit), and a backup made the
/// journal of a data dir again, as a new instance.
enum JournalFileCommand {
    enum Verb: String {
        case backup
        case restore
    }

    static func usage(_ verb: Verb) -> String {
        switch verb {
        case .backup:
            """
            usage: alertd backup --data-dir DIR FILE
              Copies the journal in DIR (ALERTD_DATA_DIR when --data-dir is not given) to FILE, replacing it, while
              alertd may be running. FILE is made 0600: it holds secure values, and must be outside DIR. Restore it
              with alertd restore.

            """
        case .restore:
            """
            usage: alertd restore --data-dir DIR FILE
              Makes the backup FILE the journal of DIR (ALERTD_DATA_DIR when --data-dir is not given), which must
              hold none (move DIR/alertd.sqlite3, -wal and -shm away first) and no running alertd. The restored
              alertd is a new instance: clients of the old one notice (their event cursors get 410, a waiter's alert
              missing from the backup is reported lost) instead of getting other events under ids they have seen.

            """
        }
    }

    /// Runs the subcommand with the arguments after its verb; returns the exit status (0, 1 when it failed, 64 for a
    /// usage error).
    static func run(_ verb: Verb, _ arguments: [String], environment: [String: String]) -> Int32 {
        var directory = environment["ALERTD_DATA_DIR"]
        var file: String?
        var reader = CommandLineReader(arguments, options: [dataDirectory, help])
        while true {
            let item: CommandLineReader.Item?
            do {
                item = try reader.next()
            } catch {
                switch error {
                case .missingValue: return fail(verb, "--data-dir needs a directory")
                case .unknownOption(let argument, _, _): return fail(verb, "unknown option \(argument)")
                case .unexpectedValue(_, let name): return fail(verb, "\(name) takes no value")
                case .repeated(let option): return fail(verb, "\(option.name) given more than once")
                }
            }
            switch item {
            case nil:
                break
            case .option(let option, _) where option.name == help.name:
                print(usage(verb), terminator: "")
                return 0
            case .option(_, let value):
                directory = value
                continue
            case .positional(let argument) where file == nil:
                file = argument
                continue
            case .positional:
                return fail(verb, "one FILE only")
            }
            break
        }
        guard let directory, !directory.isEmpty else { return fail(verb, "give the data directory: --data-dir DIR") }
        guard let file, !file.isEmpty else {
            return fail(verb, verb == .backup ? "give the file to write the backup to" : "give the backup file")
        }
        do {
            switch verb {
            case .backup:
                try SQLiteJournal.backup(directory: directory, to: file)
                print("alertd: backed up", directory, "to", file)
            case .restore:
                let restored = try SQLiteJournal.restore(backup: file, into: directory)
                print("alertd: restored \(file) into \(directory): \(restored.alerts) alerts; a new instance, its "
                    + "change index moved on from \(restored.backupIndex) to \(restored.restoredIndex)")
            }
        } catch {
            FileHandle.standardError.write(Data("alertd \(verb.rawValue): \(error)\n".utf8))
            return 1
        }
        return 0
    }

    private static let dataDirectory = CommandLineOption.option("--data-dir", value: "DIR", help: "the data dir")
    private static let help = CommandLineOption.flag("--help", "-h", help: "show this help")

    private static func fail(_ verb: Verb, _ message: String) -> Int32 {
        FileHandle.standardError.write(Data("alertd \(verb.rawValue): \(message)\n\(usage(verb))".utf8))
        return 64
    }
}
