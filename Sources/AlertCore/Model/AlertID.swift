import Locking

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An alert's identifier: opaque, unguessable and URL-safe.
///
/// Ids compare and hash byte for byte (UTF-8), not by Unicode canonical equivalence as `String` does: an id is
/// opaque, so a differently encoded spelling (`\u{212A}` KELVIN SIGN for `K`) names a different, unknown alert,
/// everywhere alike (`AlertTable` indexes ids by their bytes).
public struct AlertID: Hashable, Sendable, CustomStringConvertible {
    /// The identifier as text, as it appears in URLs.
    public let rawValue: String

    /// Wraps an identifier given as text, for example from a URL path.
    ///
    /// - Parameters:
    ///   - rawValue: The identifier's text.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The identifier's text.
    public var description: String { rawValue }

    /// Whether two ids have the same UTF-8 bytes.
    public static func == (lhs: AlertID, rhs: AlertID) -> Bool {
        var left = lhs.rawValue
        var right = rhs.rawValue
        return left.withUTF8 { left in right.withUTF8 { right in left.elementsEqual(right) } }
    }

    /// Hashes the id's UTF-8 bytes.
    public func hash(into hasher: inout Hasher) {
        var text = rawValue
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// A new identifier: 128 bits from the kernel's CSPRNG (`EntropyPool`) as 22 characters of base64url without
    /// padding.
    ///
    /// An id never starts with `-`, so command lines (`alertctl wait ID`) cannot mistake it
    /// for an option; redrawing those (1 in 64) leaves 127.9 bits of randomness.
    public static func random() -> AlertID {
        var bytes: (UInt64, UInt64) = (0, 0)
        repeat {
            withUnsafeMutableBytes(of: &bytes) { EntropyPool.shared.fill($0) }
        } while withUnsafeBytes(of: bytes, { $0[0] >> 2 }) == 62  // "-" is the 63rd base64url character
        return AlertID(rawValue: withUnsafeBytes(of: bytes) { base64URL($0) })
    }

    /// The base64url alphabet (RFC 4648 §5).
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Encodes bytes as base64url without padding.
    static func base64URL(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: (bytes.count * 4 + 2) / 3) { output in
            var written = 0
            var index = 0
            while index < bytes.count {
                let count = min(3, bytes.count - index)
                var bits: UInt32 = 0
                for offset in 0..<3 { bits = bits << 8 | (offset < count ? UInt32(bytes[index + offset]) : 0) }
                for position in 0...count {
                    output[written] = alphabet[Int(bits >> UInt32(18 - 6 * position) & 0x3F)]
                    written += 1
                }
                index += 3
            }
            return written
        }
    }
}

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
