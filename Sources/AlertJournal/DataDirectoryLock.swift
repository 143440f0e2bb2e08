#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Locking

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
