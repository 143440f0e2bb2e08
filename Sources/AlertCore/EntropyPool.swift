import Locking

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Random bytes from the kernel's CSPRNG (`/dev/urandom`), read 4 KiB at a time and handed out once each.
///
/// `SystemRandomNumberGenerator` makes a `getrandom` system call for every 8 bytes: two per alert id, about a
/// microsecond of a create, spent while the store is held. From the pool, an id costs a lock and a copy, and a
/// refill (one `read`) comes every 256 ids. Bytes are never handed out twice, and a refill that fails falls back
/// to `SystemRandomNumberGenerator`, so the ids stay as unguessable as before.
final class EntropyPool: Sendable {
    /// The pool alert ids draw from.
    static let shared = EntropyPool()

    private struct State {
        var bytes = [UInt8](repeating: 0, count: EntropyPool.capacity)
        /// Bytes before `next` have been handed out.
        var next = EntropyPool.capacity
    }

    private static let capacity = 4096
    private let state = Lock(State())

    /// Fills `buffer` with fresh random bytes (at most the pool's capacity at a time).
    func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        precondition(buffer.count <= Self.capacity, "EntropyPool: ask for at most \(Self.capacity) bytes at a time")
        state.withLock { state in
            if state.next + buffer.count > state.bytes.count {
                Self.refill(&state.bytes)
                state.next = 0
            }
            state.bytes.withUnsafeBytes { pool in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: pool[state.next..<state.next + buffer.count]))
            }
            state.next += buffer.count
        }
    }

    /// Reads a whole pool from `/dev/urandom`; anything short of that comes from `SystemRandomNumberGenerator`.
    private static func refill(_ bytes: inout [UInt8]) {
        var filled = 0
        let descriptor = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        if descriptor >= 0 {
            defer { close(descriptor) }
            while filled < bytes.count {
                let got = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, $0.count - filled) }
                if got < 0, errno == EINTR { continue }
                guard got > 0 else { break }
                filled += got
            }
        }
        guard filled < bytes.count else { return }
        var generator = SystemRandomNumberGenerator()
        for index in filled..<bytes.count {
            bytes[index] = generator.next()
        }
    }
}
