#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AlertCore
import AlertModel

/// The data directory: made when missing (with its parents, mode 0700), and checked to be writable and trusted:
/// owned by the user alertd runs as, writable by no one else, its files alertd's own and never symbolic links.
enum DataDirectory {
    /// The journal's database file in `directory`.
    static func databasePath(_ directory: String) -> String { directory + "/alertd.sqlite3" }

    /// The lock file in `directory`.
    static func lockPath(_ directory: String) -> String { directory + "/alertd.lock" }

    /// The database file and the files SQLite keeps beside it: its write-ahead log and the log's index.
    static func journalPaths(_ directory: String) -> [String] {
        let database = databasePath(directory)
        return [database, database + "-wal", database + "-shm"]
    }

    /// Makes `directory` (and its parents) when missing; checks it is a directory alertd can write in, that it owns
    /// and that no one else can write in (who can, can replace the journal's files or plant their own).
    static func prepare(_ directory: String) throws(JournalOpenError) {
        guard !directory.isEmpty else { throw JournalOpenError(.directory, "the data directory must not be empty") }
        try make(directory)
        var status = stat()
        guard stat(directory, &status) == 0 else {
            throw JournalOpenError(.directory, "cannot read the data directory \(directory): \(errorText())")
        }
        guard status.st_uid == geteuid() else {
            throw JournalOpenError(.untrusted, "the data directory \(directory) is owned by \(user(status.st_uid)), "
                + "not by the user alertd runs as (\(user(geteuid()))): that user can replace the journal's files. "
                + "chown it to the user alertd runs as, or give alertd another --data-dir")
        }
        guard status.st_mode & 0o022 == 0 else {
            throw JournalOpenError(.untrusted, "the data directory \(directory) can be written by others (mode "
                + "\(octal(status.st_mode))), who could plant or replace the journal's files: chmod go-w \(directory) "
                + "(alertd makes it 0700)")
        }
        guard access(directory, W_OK | X_OK) == 0 else {
            throw JournalOpenError(.directory, "cannot write in the data directory \(directory): \(errorText()) (it is "
                + "\(describe(status)); alertd runs as \(user(geteuid())))")
        }
    }

    /// Refuses a file of the journal at `path` that alertd did not make as it makes them: a symbolic link (alertd
    /// never follows one for its files), not a regular file, another user's, writable by others, or, when
    /// `singleName` (a file alertd writes into with plain writes: the lock, the mark), with other names (hard links,
    /// which as root could name any root's file). One that others can only read is made 0600: it holds secure
    /// values (an operator's copy put in place by hand has the umask's mode). Nothing at `path` is fine.
    static func checkFile(_ path: String, singleName: Bool = false) throws(JournalOpenError) {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            guard errno == ENOENT else { throw JournalOpenError(.directory, "cannot read \(path): \(errorText())") }
            return
        }
        try checkFile(path, status, singleName: singleName)
    }

    /// `checkFile(_:singleName:)` for a file already open or looked at.
    static func checkFile(_ path: String, _ status: stat, singleName: Bool = false) throws(JournalOpenError) {
        let problem: String
        if status.st_mode & S_IFMT == S_IFLNK {
            problem = "is a symbolic link, which alertd does not follow for its files"
        } else if status.st_mode & S_IFMT != S_IFREG {
            problem = "is not a regular file"
        } else if status.st_uid != geteuid() {
            problem = "is owned by \(user(status.st_uid)), not by the user alertd runs as (\(user(geteuid())))"
        } else if status.st_mode & 0o022 != 0 {
            problem = "can be written by others (mode \(octal(status.st_mode)))"
        } else if singleName, status.st_nlink > 1 {
            problem = "has other names (\(status.st_nlink) hard links)"
        } else {
            if status.st_mode & 0o077 != 0, chmod(path, status.st_mode & 0o700) != 0 {
                throw JournalOpenError(.directory, "cannot make \(path) private (mode 0600): \(errorText())")
            }
            return
        }
        throw JournalOpenError(.untrusted, "\(path) \(problem): alertd did not make it so and does not use it. If it "
            + "is alertd's own, make it a regular file of this user with mode 0600; otherwise move it away")
    }

    /// "uid 1000 (alice)".
    static func user(_ uid: uid_t) -> String {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "uid \(uid)" }
        return "uid \(uid) (\(String(cString: name)))"
    }

    /// "owned by uid 1000 (alice), mode 0500".
    static func describe(_ status: stat) -> String {
        "owned by \(user(status.st_uid)), mode \(octal(status.st_mode))"
    }

    /// The permission bits of `mode` as four octal digits.
    private static func octal(_ mode: mode_t) -> String {
        let text = String(mode & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - text.count)) + text
    }

    private static func make(_ path: String) throws(JournalOpenError) {
        var status = stat()
        if stat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR else {
                throw JournalOpenError(.directory, "the data directory \(path) exists and is not a directory")
            }
            return
        }
        guard errno == ENOENT else {
            throw JournalOpenError(.directory, "cannot create the data directory \(path): \(errorText())")
        }
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            try make(String(path[..<slash]))
        }
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
            throw JournalOpenError(.directory, "cannot create the data directory \(path): \(errorText())")
        }
    }

    /// The directory holding `file`: what comes before its last `/` (`/` for a file in the root), or `.`.
    static func parent(of file: String) -> String {
        guard let slash = file.lastIndex(of: "/") else { return "." }
        return slash == file.startIndex ? "/" : String(file[..<slash])
    }

    /// Flushes `directory` itself, so that the names made or renamed in it survive a power loss.
    static func sync(_ directory: String) {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    /// `strerror(errno)`.
    static func errorText() -> String {
        String(cString: strerror(errno))
    }
}

/// Which file a path names (device and inode), to tell when a name comes to mean another file.
struct FileIdentity: Equatable, Sendable {
    let device: UInt64
    let inode: UInt64

    /// The file `path` names now (following symbolic links), or nil when there is none.
    init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }
}

/// The journal's database file and write-ahead log as the journal has them open, to notice when another program
/// renames over or deletes either: SQLite goes on writing to the file it has open, which the next start no longer
/// sees. (SQLite keeps the log's file while a connection is open; a checkpoint truncates it in place.)
struct JournalFiles: Sendable {
    let path: String
    private let database: FileIdentity?
    private let log: FileIdentity?

    /// The files `path` and `path-wal` name now, once the journal has both open.
    init(path: String) {
        self.path = path
        database = FileIdentity(path: path)
        log = FileIdentity(path: path + "-wal")
    }

    /// Why the names no longer lead to the open files, if they do not.
    var replaced: JournalFailure? {
        guard FileIdentity(path: path) != database || FileIdentity(path: path + "-wal") != log else { return nil }
        return JournalFailure(reason: "\(path) or its -wal was replaced or removed while alertd ran (another program "
            + "renamed or deleted it), so what alertd writes would not be there at the next start: it writes "
            + "nothing more. Stop alertd; put the journal back from a backup (alertd restore) if it is gone")
    }
}

/// `realpath(path)`, or nil when it cannot be resolved (a missing component).
func resolvedPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
}
