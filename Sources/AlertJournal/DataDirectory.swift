#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The data directory: made when missing (with its parents, mode 0700), and checked to be writable.
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

    /// Makes `directory` (and its parents) when missing; checks it is a directory alertd can write in.
    static func prepare(_ directory: String) throws(JournalOpenError) {
        guard !directory.isEmpty else { throw JournalOpenError(.directory, "the data directory must not be empty") }
        try make(directory)
        guard access(directory, W_OK | X_OK) == 0 else {
            throw JournalOpenError(.directory, "cannot write in the data directory \(directory): \(errorText())")
        }
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

    /// Flushes `directory` itself, so that the names made or renamed in it survive a power loss.
    static func sync(_ directory: String) {
        let descriptor = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
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
struct FileIdentity: Equatable {
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

/// `realpath(path)`, or nil when it cannot be resolved (a missing component).
func resolvedPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
}
