import AlertCore
import Locking

/// A bad flag, value, environment variable or tokens file, with a message for the user.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public let description: String

    public init(description: String) {
        self.description = description
    }
}

/// The bearer tokens alertd accepts, each with a name and a role. With none, alertd runs open, and only
/// on a loopback address unless told `--insecure`.
///
/// Entries are `name:role:token`, or `name:role:token:groups` with the name's groups separated by spaces, one per line
/// or separated by commas; blank lines and lines starting with `#` are skipped, and errors name the line (and the
/// entry, when a line holds several). A name may carry several tokens (rotation), all with one role; alerts belong to
/// the name, and its groups are those of all its entries.
/// Tokens are compared in constant time and never logged or echoed in errors.
public struct AccessTokens: Sendable {
    private struct Entry: Sendable {
        let secret: [UInt8]
        let caller: Caller
        let groups: Set<String>
    }

    /// The shortest token accepted.
    public static let minimumLength = 16
    private static let maximumLength = 512

    private var entries: [Entry] = []
    /// The groups of each name, from all its entries.
    private var groupsByName: [String: Set<String>] = [:]

    /// No tokens: alertd runs open.
    public init() {}

    /// Parses entries.
    /// - Parameters:
    ///   - text: the entries: `name:role:token`, separated by newlines or commas.
    ///   - source: where they came from (a file path or a variable name), for error messages.
    /// - Throws: `ConfigurationError` naming the source and entry, never the token; also when `text` holds no
    ///   entry at all (a tokens file that is empty or all comments must not open the server to everyone).
    public init(parsing text: String, source: String) throws(ConfigurationError) {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        for (lineIndex, line) in lines.enumerated() where !line.trimmingWhitespace.hasPrefix("#") {
            let entries = line.split(separator: ",", omittingEmptySubsequences: false)
            for (entryIndex, piece) in entries.enumerated() {
                // Named by line in a file, by entry in one line (`ALERTD_TOKENS`), by both when a line holds several.
                let place = [lines.count > 1 ? "line \(lineIndex + 1)" : nil,
                             entries.count > 1 ? "entry \(entryIndex + 1)" : nil].compactMap { $0 }
                try parse(piece.trimmingWhitespace,
                          at: place.isEmpty ? source : "\(source) \(place.joined(separator: ", "))")
            }
        }
        guard !entries.isEmpty else {
            throw ConfigurationError(description: "\(source) holds no tokens, only blank lines or comments: alertd "
                + "would serve everyone everything. Add name:role:token entries, or give no tokens at all to run "
                + "open on loopback")
        }
    }

    /// Adds one entry, unless it is blank or a comment.
    /// - Parameter place: the source and where in it, for errors.
    private mutating func parse(_ entry: Substring, at place: String) throws(ConfigurationError) {
        guard !entry.isEmpty, !entry.hasPrefix("#") else { return }
        let parts = entry.split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false)
        func fail(_ reason: String) -> ConfigurationError {
            ConfigurationError(description: "\(place): \(reason) (entries are name:role:token or name:role:token:groups)")
        }
        guard parts.count == 3 || parts.count == 4 else { throw fail("expected three or four parts separated by ':'") }
        let name = String(parts[0])
        guard AlertDraft.isValidPresenter(name) else { throw fail("the name must match [A-Za-z0-9._-]{1,64}") }
        guard let role = Role(rawValue: String(parts[1])) else {
            throw fail("the role of '\(name)' must be producer, responder, admin or monitor")
        }
        let secret = Array(parts[2].utf8)
        guard (Self.minimumLength...Self.maximumLength).contains(secret.count) else {
            throw fail("the token of '\(name)' must be \(Self.minimumLength) to \(Self.maximumLength) characters")
        }
        guard secret.allSatisfy(Self.isTokenCharacter) else {
            throw fail("the token of '\(name)' may hold only letters, digits and - . _ ~ + / =")
        }
        let groups = parts.count == 4 ? parts[3].split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init) : []
        if let bad = groups.first(where: { !AlertDraft.isValidPresenter($0) }) {
            throw fail("the group '\(bad)' of '\(name)' must match [A-Za-z0-9._-]{1,64}")
        }
        try add(Entry(secret: secret, caller: Caller(name: name, role: role), groups: Set(groups)), fail: fail)
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
        if let name = entry.caller.name { groupsByName[name, default: []].formUnion(entry.groups) }
    }

    /// The caller a presented token belongs to, or nil. Every configured token is compared, each in time that
    /// depends only on its own length, so neither which token matched nor how much of one did shows in timing.
    func caller(presenting token: Substring.UTF8View) -> Caller? {
        let presented = Array(token)
        var found: Caller?
        for entry in entries where Self.matches(entry.secret, presented) && found == nil {
            found = entry.caller
        }
        if let name = found?.name, let groups = groupsByName[name] { found?.groups = groups }
        return found
    }

    /// Whether `name` has a token whose role may answer alerts.
    public func hasResponder(named name: String) -> Bool {
        caller(named: name)?.role.may(.answer) == true
    }

    /// The caller of the name's tokens; nil when no token has that name.
    func caller(named name: String) -> Caller? {
        entries.first { $0.caller.name == name }?.caller
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

/// The bearer tokens in force, replaced whole when the tokens file is reloaded (SIGHUP).
///
/// Whether alertd runs open is fixed at start: a server started without tokens has none to reload, and a reload
/// that would leave none is refused (`AccessTokens` never parses to an empty set), so `isOpen` never changes.
public final class LiveTokens: Sendable {
    /// Whether no tokens are configured: every request may do everything.
    public let isOpen: Bool
    private let current: Lock<AccessTokens>

    /// - Parameter tokens: the tokens at start.
    public init(_ tokens: AccessTokens) {
        isOpen = tokens.isEmpty
        current = Lock(tokens)
    }

    /// The caller a presented token belongs to, among the tokens in force now; nil for none.
    func caller(presenting token: Substring.UTF8View) -> Caller? {
        // Compared outside the lock: a reload does not wait for a comparison, nor one comparison for another.
        let tokens = current.withLock { $0 }
        return tokens.caller(presenting: token)
    }

    /// The caller `name` is, while the tokens in force give that name a token; nil when none does.
    func caller(named name: String) -> Caller? {
        current.withLock { $0 }.caller(named: name)
    }

    /// Serves with `tokens` from the next request on; requests already authenticated keep their caller.
    /// - Returns: false, changing nothing, when `tokens` is empty or alertd runs open.
    public func replace(with tokens: AccessTokens) -> Bool {
        guard !isOpen, !tokens.isEmpty else { return false }
        current.withLock { $0 = tokens }
        return true
    }
}
