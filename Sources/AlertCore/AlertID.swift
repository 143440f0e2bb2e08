/// An alert's identifier: opaque, unguessable and URL-safe.
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

    /// A new identifier: 128 bits from `SystemRandomNumberGenerator` as 22 characters of base64url without padding.
    ///
    /// An id never starts with `-`, so command lines (`alertctl wait ID`) cannot mistake it
    /// for an option; redrawing those (1 in 64) leaves 127.9 bits of randomness.
    public static func random() -> AlertID {
        var generator = SystemRandomNumberGenerator()
        while true {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(16)
            for _ in 0..<2 {
                let word = generator.next() as UInt64
                for shift in stride(from: 56, through: 0, by: -8) {
                    bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
                }
            }
            let text = base64URL(bytes)
            if !text.hasPrefix("-") { return AlertID(rawValue: text) }
        }
    }

    /// The base64url alphabet (RFC 4648 §5).
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Encodes bytes as base64url without padding.
    private static func base64URL(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var bits: UInt32 = 0
            for byte in chunk { bits = bits << 8 | UInt32(byte) }
            bits <<= UInt32(8 * (3 - chunk.count))
            for position in 0...chunk.count {
                let sextet = Int(bits >> UInt32(18 - 6 * position) & 0x3F)
                output.append(alphabet[sextet])
            }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }
}
