import Locking

/// What the cluster keeps for the responder page's single-alert links, so that every instance honours the others'
/// links and a link works once across all of them and their restarts:
///
/// - the key that signs links (`alertd_page_key`, version 3): 32 random bytes, made by whichever instance starts
///   first (`INSERT … ON CONFLICT DO NOTHING`, then every instance reads the one row), so all share it;
/// - the links used (`alertd_used_links`): a link's use is claimed by inserting its nonce, committed (with
///   `synchronous_commit` at least `on`, `PGConnection.sessionSettings`) before the tap is answered; the insert
///   that finds the nonce there already is a second use, on whichever instance. Rows are kept until their link
///   would have expired anyway, then pruned (at start, and hourly while links are used).
///
/// It has a connection of its own, made on the first claim and again after one fails, so a claim never waits
/// behind the writer's batches.
public final class ClusterLinks: Sendable {
    /// What a claim found.
    public enum Claim: Sendable, Equatable {
        /// The link's first use, now committed.
        case claimed
        /// Some instance used it before.
        case usedBefore
        /// The database could not be asked or did not commit: the link must not be honoured (it may be tried again).
        case unrecorded
    }

    /// The key that signs links, the same on every instance.
    public let key: [UInt8]
    private let url: String
    /// The connection claims use, and when the used links were last pruned (Unix seconds).
    private let state: Lock<(connection: PGConnection?, pruned: Int64)>

    /// How often expired rows are pruned while links are used.
    static let pruneInterval: Int64 = 3600

    /// Reads the key (making it when no instance has yet) and prunes the links that expired, on `connection`.
    init(url: String, connection: PGConnection, now: Int64) throws(PGError) {
        var generator = SystemRandomNumberGenerator()
        let made = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        try connection.execute("INSERT INTO alertd_page_key (id, key) VALUES (1, $1) ON CONFLICT (id) DO NOTHING",
                               [Self.hex(made)])
        let stored = try connection.execute("SELECT key FROM alertd_page_key WHERE id = 1").first?.first ?? nil
        guard let stored, let key = Self.bytes(hex: stored), key.count == 32 else {
            throw PGError("alertd_page_key does not hold a 32-byte key: delete its row to make a new one (links "
                + "signed before stop working)")
        }
        try connection.execute("DELETE FROM alertd_used_links WHERE expires_at <= $1", [String(now)])
        self.key = key
        self.url = url
        state = Lock((nil, now))
    }

    /// Claims the link `nonce` (valid until `expiresAt`, Unix seconds) as used; returns once the claim is committed
    /// or refused. Blocks for one round trip (a connection's too after a failure), at most `PGConnection`'s
    /// connect and statement limits.
    public func claim(_ nonce: String, expiresAt: Int64, now: Int64) -> Claim {
        state.withLock { state in
            do throws(PGError) {
                let connection: PGConnection
                if let open = state.connection {
                    connection = open
                } else {
                    connection = try PGConnection(url)
                    state.connection = connection
                }
                let rows = try connection.execute("""
                    INSERT INTO alertd_used_links (nonce, expires_at) VALUES ($1, $2)
                    ON CONFLICT (nonce) DO NOTHING RETURNING nonce
                    """, [nonce, String(expiresAt)])
                if now - state.pruned >= Self.pruneInterval {
                    state.pruned = now
                    _ = try? connection.execute("DELETE FROM alertd_used_links WHERE expires_at <= $1", [String(now)])
                }
                return rows.isEmpty ? .usedBefore : .claimed
            } catch {
                state.connection = nil
                return .unrecorded
            }
        }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }

    static func bytes(hex text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
