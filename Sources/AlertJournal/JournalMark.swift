#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Locking

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
