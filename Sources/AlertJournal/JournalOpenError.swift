/// Why the journal cannot be opened; the description says it for the person starting alertd.
public struct JournalOpenError: Error, Sendable, CustomStringConvertible {
    /// The kind of problem.
    public enum Reason: Sendable, Equatable {
        /// The data directory cannot be created or written.
        case directory
        /// The data directory or a file in it is not alertd's alone: another user's, writable by others, a
        /// symbolic link, or a journal file others can read.
        case untrusted
        /// Another process holds the data directory; `pid` is the process it names, when it could be read.
        case locked(pid: Int32?)
        /// The file is not an SQLite database, or is damaged.
        case corrupt
        /// The data dir held a journal that is gone, empty or not the one it held, or holds parts of one (a log
        /// without its database, what an interrupted restore left).
        case incomplete
        /// The journal ends at change index `found`, before `marked`, the last commit the data dir's mark says was
        /// acknowledged: commits were lost (a damaged write-ahead log).
        case behind(found: UInt64, marked: UInt64)
        /// The file is an SQLite database that is not alertd's journal.
        case foreign
        /// The file was written by a newer alertd.
        case newerSchema(found: Int, supported: Int)
        /// SQLite failed otherwise.
        case failed
    }

    /// The kind of problem.
    public let reason: Reason
    /// What went wrong and what to do, naming the path.
    public let description: String

    init(_ reason: Reason, _ description: String) {
        self.reason = reason
        self.description = description
    }
}
