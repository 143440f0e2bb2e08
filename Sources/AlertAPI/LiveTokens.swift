import Locking

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
