import AlertCore
import Locking

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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

/// An exclusive `flock` on `DIR/alertd.lock`, with the holder's pid written in the file: one alertd per data dir.
///
/// `flock` locks belong to the open file, so a second open in the same process conflicts too; the kernel drops
/// the lock when the process dies, however it dies.
final class DataDirectoryLock: Sendable {
    /// The lock file, open while the lock is held; -1 once released.
    private let file: Lock<Int32>

    /// Takes the lock.
    ///
    /// - Throws: `JournalOpenError` `locked` naming the holder's pid when another open file holds it, `untrusted`
    ///   when the file is a symbolic link or not alertd's own, or `directory` when it cannot be created.
    init(directory: String) throws(JournalOpenError) {
        let path = DataDirectory.lockPath(directory)
        // Never through a symbolic link, and only a file of alertd's own: the pid is written into it.
        let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            if errno == ELOOP { try DataDirectory.checkFile(path, singleName: true) }
            throw JournalOpenError(.directory, "cannot write \(path): \(DataDirectory.errorText())")
        }
        var status = stat()
        do throws(JournalOpenError) {
            guard fstat(descriptor, &status) == 0 else {
                throw JournalOpenError(.directory, "cannot read \(path): \(DataDirectory.errorText())")
            }
            try DataDirectory.checkFile(path, status, singleName: true)
        } catch {
            close(descriptor)
            throw error
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let reason = errno
            let holder = Self.readPID(descriptor)
            close(descriptor)
            guard reason == EWOULDBLOCK else {
                throw JournalOpenError(.directory, "cannot lock \(path): \(String(cString: strerror(reason)))")
            }
            let who = holder.map { "process \($0)" } ?? "another process"
            throw JournalOpenError(
                .locked(pid: holder),
                "the data directory \(directory) is in use by \(who) (it holds \(path)); stop that alertd first, "
                    + "or give this one another --data-dir")
        }
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        file = Lock(descriptor)
    }

    deinit {
        release()
    }

    /// Releases the lock. Unlocks before closing: a process spawned at this moment holds a copy of the descriptor
    /// until its exec closes it (`O_CLOEXEC`), and a close alone would leave the lock held by that copy meanwhile.
    func release() {
        file.withLock { descriptor in
            guard descriptor >= 0 else { return }
            flock(descriptor, LOCK_UN)
            close(descriptor)
            descriptor = -1
        }
    }

    /// The pid written in the lock file, if it holds one.
    private static func readPID(_ descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[..<count], as: UTF8.self)
        return text.split(whereSeparator: \.isWhitespace).first.flatMap { Int32($0) }
    }
}

/// `DIR/alertd.mark`: a small file beside the journal, outside SQLite, that says the data dir holds a journal, whose
/// (the instance epoch), and the change index of its last acknowledged commit.
///
/// A start compares it with the database: a missing, empty or lost database, or a write-ahead log that SQLite stopped
/// reading early (a damaged frame ends the log for SQLite, silently dropping every later commit), shows as a journal
/// behind its mark, and is refused rather than started empty or with event ids handed out again. Only a data dir
/// without a mark starts a new journal.
///
/// Each commit writes the new index into the file (one `pwrite` of the same length, in place) after SQLite's commit
/// returned and before the commit is acknowledged, without an `fsync` of its own: the kernel has it at once, so a
/// crash of alertd leaves it as it was written; only a power loss may take back the last seconds of raises (until the
/// kernel writes it back, or the next idle checkpoint or `close` syncs it), which makes the check weaker, never a
/// refusal of a sound journal: the mark never passes what SQLite has already synced.
final class JournalMark: Sendable {
    /// What the mark says.
    struct Contents: Equatable {
        var epoch: String
        var changeIndex: UInt64

        /// What a first start writes before it makes the journal's file: a journal is being made, none committed yet
        /// (no epoch). A start that finds it with no journal, or an empty file, makes the journal anew: the start
        /// before failed or was killed before it made one.
        static let unborn = Contents(epoch: "", changeIndex: 0)

        var isUnborn: Bool { epoch.isEmpty }
    }

    /// The mark of `directory`.
    static func path(_ directory: String) -> String { directory + "/alertd.mark" }

    private static let header = "alertd journal mark 1\n"

    let path: String
    private let epoch: String
    /// The open file; -1 once closed.
    private let file: Lock<Int32>

    /// Opens the mark of `directory` for the commits of the journal with `epoch`.
    init(directory: String, epoch: String) throws(JournalOpenError) {
        path = Self.path(directory)
        self.epoch = epoch
        let descriptor = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw JournalOpenError(.directory, "cannot open \(path) for writing: \(DataDirectory.errorText())")
        }
        file = Lock(descriptor)
    }

    deinit {
        close()
    }

    /// Writes `changeIndex` into the file. A failed write is reported; the commit it follows is durable already.
    func record(_ changeIndex: UInt64) -> Bool {
        let bytes = Self.text(Contents(epoch: epoch, changeIndex: changeIndex))
        return file.withLock { descriptor in
            bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) } == bytes.count
        }
    }

    /// Flushes what `record` wrote to the disk.
    func sync() {
        file.withLock { descriptor in
            if descriptor >= 0 { _ = fdatasync(descriptor) }
        }
    }

    /// Syncs and closes the file.
    func close() {
        file.withLock { descriptor in
            guard descriptor >= 0 else { return }
            _ = fdatasync(descriptor)
            Glibc.close(descriptor)
            descriptor = -1
        }
    }

    /// The mark of `directory`, or nil when it has none.
    ///
    /// - Throws: `JournalOpenError` `corrupt` when the file says something else, `directory` when it cannot be read.
    static func read(_ directory: String) throws(JournalOpenError) -> Contents? {
        let path = path(directory)
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw JournalOpenError(.directory, "cannot read \(path): \(DataDirectory.errorText())")
        }
        defer { Glibc.close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        let lines = String(decoding: buffer[..<max(0, count)], as: UTF8.self).split(separator: "\n")
        guard lines.count == 3, lines[0] + "\n" == header,
              lines[1].hasPrefix("epoch "), lines[2].hasPrefix("change_index "),
              let index = UInt64(lines[2].dropFirst("change_index ".count))
        else {
            throw JournalOpenError(.corrupt, "\(path) is damaged (it should say which journal this data dir holds "
                + "and how far it was committed); alertd leaves the data dir untouched: if alertd.sqlite3 is sound, "
                + "remove \(path) and start alertd again, which writes a new one")
        }
        return Contents(epoch: String(lines[1].dropFirst("epoch ".count)), changeIndex: index)
    }

    /// Writes the mark of `directory` anew, saying `contents`: to a new file, synced, renamed into place, the
    /// directory synced, so that it is either the old mark or the new one, also after a power loss.
    static func write(_ contents: Contents, in directory: String) throws(JournalOpenError) {
        let path = path(directory)
        let partial = "\(path).new-\(getpid())"
        unlink(partial)
        let descriptor = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw JournalOpenError(.directory, "cannot write \(partial): \(DataDirectory.errorText())")
        }
        let bytes = text(contents)
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        Glibc.close(descriptor)
        guard written == bytes.count, synced, rename(partial, path) == 0 else {
            let reason = DataDirectory.errorText()
            unlink(partial)
            throw JournalOpenError(.directory, "cannot write \(path): \(reason)")
        }
        DataDirectory.sync(directory)
    }

    /// The file's text: always the same length for one epoch (the index has 20 digits), so that `record` overwrites
    /// it in place.
    private static func text(_ contents: Contents) -> [UInt8] {
        let digits = String(contents.changeIndex)
        return Array((header + "epoch \(contents.epoch)\nchange_index "
            + String(repeating: "0", count: 20 - digits.count) + digits + "\n").utf8)
    }
}
