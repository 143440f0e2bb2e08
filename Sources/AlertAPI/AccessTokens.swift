import AlertCore

/// The bearer tokens alertd accepts, each with a name and a role. With none, alertd runs open, and only
/// on a loopback address unless told `--insecure`.
///
/// Entries are `name:role:token`, one per line or separated by commas; blank lines and lines starting with
/// `#` are skipped. A name may carry several tokens (rotation), all with one role; alerts belong to the name.
/// Tokens are compared in constant time and never logged or echoed in errors.
public struct AccessTokens: Sendable {
    private struct Entry: Sendable {
        let secret: [UInt8]
        let caller: Caller
    }

    /// The shortest token accepted.
    public static let minimumLength = 16
    private static let maximumLength = 512

    private var entries: [Entry] = []

    /// No tokens: alertd runs open.
    public init() {}

    /// Parses entries.
    /// - Parameters:
    ///   - text: the entries: `name:role:token`, separated by newlines or commas.
    ///   - source: where they came from (a file path or a variable name), for error messages.
    /// - Throws: `ConfigurationError` naming the source and entry, never the token; also when `text` holds no
    ///   entry at all (a tokens file that is empty or all comments must not open the server to everyone).
    public init(parsing text: String, source: String) throws(ConfigurationError) {
        var number = 0
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "," }) {
            let entry = line.trimmingWhitespace
            guard !entry.isEmpty, !entry.hasPrefix("#") else { continue }
            number += 1
            let parts = entry.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            func fail(_ reason: String) -> ConfigurationError {
                ConfigurationError(description: "\(source), token entry \(number): \(reason) (entries are name:role:token)")
            }
            guard parts.count == 3 else { throw fail("expected three parts separated by ':'") }
            let name = String(parts[0])
            guard AlertDraft.isValidPresenter(name) else { throw fail("the name must match [A-Za-z0-9._-]{1,64}") }
            guard let role = Role(rawValue: String(parts[1])) else {
                throw fail("the role of '\(name)' must be producer, responder or admin")
            }
            let secret = Array(parts[2].utf8)
            guard (Self.minimumLength...Self.maximumLength).contains(secret.count) else {
                throw fail("the token of '\(name)' must be \(Self.minimumLength) to \(Self.maximumLength) characters")
            }
            guard secret.allSatisfy(Self.isTokenCharacter) else {
                throw fail("the token of '\(name)' may hold only letters, digits and - . _ ~ + / =")
            }
            try add(Entry(secret: secret, caller: Caller(name: name, role: role)), fail: fail)
        }
        guard !entries.isEmpty else {
            throw ConfigurationError(description: "\(source) holds no tokens, only blank lines or comments: alertd "
                + "would serve everyone everything. Add name:role:token entries, or give no tokens at all to run "
                + "open on loopback")
        }
    }

    /// Whether no token is configured.
    public var isEmpty: Bool { entries.isEmpty }

    /// How many tokens are configured.
    public var count: Int { entries.count }

    /// Both sets of tokens.
    /// - Throws: `ConfigurationError` when they repeat a token or give a name two roles.
    public func merged(with other: AccessTokens) throws(ConfigurationError) -> AccessTokens {
        var merged = self
        for entry in other.entries {
            try merged.add(entry) { ConfigurationError(description: $0) }
        }
        return merged
    }

    private mutating func add(_ entry: Entry, fail: (String) -> ConfigurationError) throws(ConfigurationError) {
        if entries.contains(where: { Self.matches($0.secret, entry.secret) }) {
            throw fail("the token of '\(entry.caller.name ?? "")' is given twice")
        }
        if let other = entries.first(where: { $0.caller.name == entry.caller.name && $0.caller.role != entry.caller.role }) {
            throw fail("'\(other.caller.name ?? "")' is given two roles")
        }
        entries.append(entry)
    }

    /// The caller a presented token belongs to, or nil. Every configured token is compared, each in time that
    /// depends only on its own length, so neither which token matched nor how much of one did shows in timing.
    func caller(presenting token: Substring.UTF8View) -> Caller? {
        let presented = Array(token)
        var found: Caller?
        for entry in entries where Self.matches(entry.secret, presented) && found == nil {
            found = entry.caller
        }
        return found
    }

    /// Constant-time equality: always walks all of `secret`.
    private static func matches(_ secret: [UInt8], _ presented: [UInt8]) -> Bool {
        var difference: UInt8 = secret.count == presented.count ? 0 : 1
        for index in secret.indices {
            difference |= secret[index] ^ (index < presented.count ? presented[index] : 0)
        }
        return difference == 0
    }

    /// RFC 6750 `b64token` characters.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "-._~+/=".utf8.contains(byte)
        }
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmingWhitespace: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return self[first...last]
    }
}
