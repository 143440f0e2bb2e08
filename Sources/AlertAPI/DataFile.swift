#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AlertCore

/// The small line files alertd keeps in its data dir beside the journal (`notify-outbox`, `used-links`): read whole
/// at start, rewritten compacted, then appended to.
enum DataFile {
    /// The file's text; nil when it is missing or unreadable.
    static func contents(of path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += buffer.prefix(count)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Replaces the file with `text` (written to `path.partial`, synced, renamed over it, the directory synced), and
    /// opens it for appending.
    /// - Returns: the descriptor to append with, or nil (errno says why).
    static func replace(_ path: String, with text: String) -> Int32? {
        let partial = path + ".partial"
        let made = open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard made >= 0 else { return nil }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(made, $0.baseAddress, $0.count) }
        let synced = fsync(made)
        close(made)
        guard written == bytes.count, synced == 0, rename(partial, path) == 0 else { return nil }
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let parent = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_CLOEXEC)
        if parent >= 0 {
            fsync(parent)
            close(parent)
        }
        let appending = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW)
        return appending >= 0 ? appending : nil
    }

    /// Appends `line` in one `write(2)`; with `sync`, returns once it is on disk.
    /// - Returns: whether it was written (and synced).
    @discardableResult
    static func append(_ line: String, to fd: Int32, sync: Bool) -> Bool {
        let bytes = Array(line.utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else { return false }
        return !sync || fsync(fd) == 0
    }

    static func failure(_ path: String, _ what: String) -> ConfigurationError {
        ConfigurationError(description: "\(path): \(what) (\(String(cString: strerror(errno))))")
    }
}
