import Locking

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Random bytes from the kernel's CSPRNG, fetched 256 at a time with `getentropy` and handed out once each.
///
/// `SystemRandomNumberGenerator` makes a `getrandom` system call for every 8 bytes: two per alert id, about a
/// microsecond of a create, spent while the store is held. From the pool, an id costs a lock and a copy, and a
/// refill (one `getentropy`, which like `getrandom` needs no file and waits for the CSPRNG to be seeded) comes
/// every 16 ids. Bytes are never handed out twice, and a refill that fails falls back to
/// `SystemRandomNumberGenerator`, so ids stay as unguessable as before. At most 15 future ids' bytes sit in memory.
/// A forked child would share the pool's bytes with its parent: alertd never forks.
final class EntropyPool: Sendable {
    /// The pool alert ids draw from.
    static let shared = EntropyPool()

    private struct State {
        var bytes = [UInt8](repeating: 0, count: EntropyPool.capacity)
        /// Bytes before `next` have been handed out.
        var next = EntropyPool.capacity
    }

    /// `getentropy`'s limit per call.
    private static let capacity = 256
    private let state = Lock(State())

    /// Fills `buffer` with fresh random bytes (at most 256 at a time).
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

    /// A whole pool from `getentropy`, or from `SystemRandomNumberGenerator` if that fails.
    private static func refill(_ bytes: inout [UInt8]) {
        let filled = bytes.withUnsafeMutableBytes { getentropy($0.baseAddress, $0.count) } == 0
        guard !filled else { return }
        var generator = SystemRandomNumberGenerator()
        bytes.withUnsafeMutableBytes { raw in
            for offset in stride(from: 0, to: raw.count, by: 8) {
                raw.storeBytes(of: generator.next() as UInt64, toByteOffset: offset, as: UInt64.self)
            }
        }
    }
}
