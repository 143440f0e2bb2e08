import AlertCore
import Foundation
import Locking

/// Who is signed in to the responder's page (`/app`), and the single-alert links alertd signs.
///
/// A session is a random id in an `HttpOnly` cookie, kept in memory (a restart signs everyone out). A session from
/// the sign-in form keeps the token it was opened with and presents it to `LiveTokens` on every request, so a token
/// that SIGHUP removed ends its sessions at once; one opened by a link names a responder and one alert, and ends when
/// that name holds no token that may answer. CSRF tokens need no state: an HMAC of the session id (or, before
/// sign-in, of a random form cookie) under the page key.
public final class PageAccess: Sendable {
    /// One signed-in browser.
    struct Session: Sendable {
        /// The token presented at sign-in; nil for a link's session and in open mode.
        let token: [UInt8]?
        /// The responder a link named; nil for a token's session (its name comes from the token).
        let linkResponder: String?
        /// The one alert a link's session may see; nil for a token's session.
        let alert: AlertID?
        let expires: Date
    }

    /// How long a session from the sign-in form lasts, whatever is done with it.
    static let sessionLifetime: TimeInterval = 8 * 3600
    /// How long a session opened by a link lasts.
    static let linkSessionLifetime: TimeInterval = 15 * 60
    /// Most sessions kept; past it the one nearest its end goes.
    static let sessionLimit = 10_000
    /// How long a link alertd signs stays usable, unless told otherwise (`--link-lifetime`).
    public static let linkLifetime: TimeInterval = 24 * 3600
    /// How long the links this alertd signs stay usable.
    let linkLifetime: TimeInterval

    /// The key of links and CSRF tokens: the data dir's, the cluster's, or this process's own.
    let key: [UInt8]
    private let sessions = Lock<[String: Session]>([:])
    /// Links already used, by nonce, until they would have expired anyway.
    private let usedLinks: Lock<[String: Date]>
    /// Where a link's use is recorded before it is honoured (the data dir's or the cluster's); nil in memory only.
    private let record: (any LinkUseRecord)?

    /// - Parameter usedLinks: the record of used links (the data dir's, or the cluster's), so that a link works once
    ///   across a restart, and across instances.
    public init(key: PageKey, linkLifetime: TimeInterval = PageAccess.linkLifetime,
                usedLinks: (any LinkUseRecord)? = nil) {
        self.key = key.bytes
        self.linkLifetime = linkLifetime
        record = usedLinks
        self.usedLinks = Lock(usedLinks?.restored ?? [:])
    }

    // MARK: sessions

    /// Opens a session; returns its id.
    func open(_ session: Session, now: Date = Date()) -> String {
        let id = Base64URL.random(32)
        sessions.withLock { sessions in
            if sessions.count >= Self.sessionLimit {
                sessions = sessions.filter { $0.value.expires > now }
                if sessions.count >= Self.sessionLimit,
                   let soonest = sessions.min(by: { $0.value.expires < $1.value.expires }) {
                    sessions.removeValue(forKey: soonest.key)
                }
            }
            sessions[id] = session
        }
        return id
    }

    /// The session `id` names, while it lasts.
    func session(_ id: String, now: Date = Date()) -> Session? {
        sessions.withLock { sessions in
            guard let session = sessions[id] else { return nil }
            guard session.expires > now else {
                sessions.removeValue(forKey: id)
                return nil
            }
            return session
        }
    }

    func close(_ id: String) {
        _ = sessions.withLock { $0.removeValue(forKey: id) }
    }

    // MARK: CSRF

    /// The CSRF token of forms shown to the holder of `cookie` (a session id or a form cookie).
    func csrf(for cookie: String) -> String {
        Base64URL.encode(SHA256.hmac(key: key, Array("csrf\n\(cookie)".utf8)))
    }

    func checkCSRF(_ presented: String?, for cookie: String?) -> Bool {
        guard let presented, let cookie, let bytes = Base64URL.decode(Substring(presented)) else { return false }
        return SHA256.equal(bytes, SHA256.hmac(key: key, Array("csrf\n\(cookie)".utf8)))
    }

    // MARK: links

    /// What a valid link says.
    struct Link: Equatable, Sendable {
        let alert: AlertID
        let responder: String
        let expires: Date
        let nonce: String
        /// The button an answer link chooses; nil for a link that opens the alert.
        let button: Int?
    }

    /// A link's token (`/app/link?l=TOKEN`) for `responder` to answer `alert`, valid for `lifetime`.
    /// With `button`, an answer link (`POST /app/answer?l=TOKEN`) that chooses that button.
    public func signLink(alert: AlertID, responder: String, button: Int? = nil, lifetime: TimeInterval? = nil,
                         now: Date = Date()) -> String {
        let lifetime = lifetime ?? linkLifetime
        let expires = Int64((now.timeIntervalSince1970 + lifetime).rounded(.down))
        let payload = Array(("v1\n\(alert.rawValue)\n\(responder)\n\(expires)\n\(Base64URL.random(12))\n"
            + (button.map(String.init) ?? "-")).utf8)
        return Base64URL.encode(payload) + "." + Base64URL.encode(SHA256.hmac(key: key, Array("link\n".utf8) + payload))
    }

    /// Why a link is refused.
    enum LinkRefusal: Error, Equatable {
        case malformed, badSignature, expired, used
        /// Its use could not be recorded in the data dir, so it was not honoured (it may be tried again).
        case unrecorded

        /// The HTTP status of the refusal: 503 when alertd could not record the use, else 403.
        var status: Int { self == .unrecorded ? 503 : 403 }

        /// What the refusal says, a sentence without its full stop.
        var reason: String {
            switch self {
            case .used: "This link was used already: a link works once"
            case .expired: "This link has expired"
            case .unrecorded: "alertd could not record this link's use, so it was not used: try again later"
            case .malformed, .badSignature: "This is not a link alertd signed"
            }
        }
    }

    /// Reads a link's token, checks its signature and expiry, and marks it used: with a data dir or a cluster,
    /// returns once that is durable (in a cluster, refused when any instance used it before).
    func useLink(_ token: String, now: Date = Date()) throws(LinkRefusal) -> Link {
        let link = try read(token, now: now)
        let fresh = usedLinks.withLock { used -> Bool in
            if used.count > 100_000 { used = used.filter { $0.value > now } }
            guard used[link.nonce] == nil else { return false }
            used[link.nonce] = link.expires
            return true
        }
        guard fresh else { throw .used }
        // Marked in memory first, so that a second use at the same time is refused while this one is synced.
        switch record?.claim(link.nonce, expires: link.expires) ?? .claimed {
        case .claimed: return link
        case .usedBefore: throw .used
        case .unrecorded:
            _ = usedLinks.withLock { $0.removeValue(forKey: link.nonce) }
            throw .unrecorded
        }
    }

    /// A link's token checked, not marked used.
    func read(_ token: String, now: Date = Date()) throws(LinkRefusal) -> Link {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, token.utf8.count < 1024, let payload = Base64URL.decode(parts[0]),
              let signature = Base64URL.decode(parts[1]) else { throw .malformed }
        guard SHA256.equal(signature, SHA256.hmac(key: key, Array("link\n".utf8) + payload)) else {
            throw .badSignature
        }
        let fields = String(decoding: payload, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard fields.count == 6, fields[0] == "v1", let expires = Int64(fields[3]) else { throw .malformed }
        let button = fields[5] == "-" ? nil : Int(fields[5])
        guard fields[5] == "-" || button != nil else { throw .malformed }
        let expiry = Date(timeIntervalSince1970: TimeInterval(expires))
        guard expiry > now else { throw .expired }
        return Link(alert: AlertID(rawValue: String(fields[1])), responder: String(fields[2]), expires: expiry,
                    nonce: String(fields[4]), button: button)
    }
}
