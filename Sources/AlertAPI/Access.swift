import AlertCore
import MicroHTTP

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension APIHandler {
    /// Who sent a request that does `action`.
    ///
    /// Without configured tokens every request is `Caller.open`. With them, public reads need no token, and
    /// everything else needs `Authorization: Bearer <token>`.
    /// - Throws: `Problem` 401 without a valid token.
    func authenticate(_ request: HTTPRequest, _ action: Role.Action) throws(Problem) -> Caller {
        guard !tokens.isOpen, action != .readPublic else { return .open }
        guard let header = request.headers["authorization"] else {
            throw .unauthorized("send the header 'Authorization: Bearer <token>'", invalidToken: false)
        }
        let utf8 = Substring(header).utf8
        let scheme = utf8.prefix { $0 != UInt8(ascii: " ") }
        guard String(Substring(scheme)).lowercased() == "bearer" else {
            throw .unauthorized("only the Bearer scheme is accepted: 'Authorization: Bearer <token>'",
                                invalidToken: false)
        }
        let token = utf8[scheme.endIndex...].drop { $0 == UInt8(ascii: " ") }
        guard let caller = tokens.caller(presenting: Substring(token).utf8) else {
            throw .unauthorized("the bearer token is not valid", invalidToken: true)
        }
        return caller
    }

    /// - Throws: `Problem` 403 when the caller's role may not do `action`.
    func authorize(_ caller: Caller, _ action: Role.Action) throws(Problem) {
        guard !caller.role.may(action) else { return }
        throw .forbidden("the \(caller.role.rawValue) role may not \(action.phrase)", scope: true)
    }

    /// The alert as it is now, or nil when there is none (the store answers 404 in turn).
    /// - Throws: `Problem` 403 when a producer asks about an alert another producer created.
    func readable(_ id: AlertID, by caller: Caller) throws(Problem) -> Alert? {
        let alert = store.snapshot(of: id)
        if let owner = caller.ownerFilter, let alert, alert.owner != owner {
            throw .forbidden("alert \(id.rawValue) belongs to another producer", scope: false)
        }
        return alert
    }
}

extension Problem {
    /// 401 with the `WWW-Authenticate` challenge of RFC 6750.
    static func unauthorized(_ detail: String, invalidToken: Bool) -> Problem {
        var problem = Problem.alertd(401, "unauthorized", "Unauthorized", detail: detail)
        problem.headers.add("WWW-Authenticate", #"Bearer realm="alertd""# + (invalidToken ? #", error="invalid_token""# : ""))
        return problem
    }

    /// 403: the token is valid but may not do this.
    static func forbidden(_ detail: String, scope: Bool) -> Problem {
        var problem = Problem.alertd(403, "forbidden", "Forbidden", detail: detail)
        if scope { problem.headers.add("WWW-Authenticate", #"Bearer realm="alertd", error="insufficient_scope""#) }
        return problem
    }
}

/// Who sent a request, as far as access control goes.
struct Caller: Sendable {
    /// The token's name; `nil` when alertd runs without tokens.
    let name: String?
    let role: Role
    /// The groups the tokens file gives the name (see `AccessTokens`).
    var groups: Set<String> = []

    /// The caller of every request when no tokens are configured: anonymous, allowed everything.
    static let open = Caller(name: nil, role: .admin)

    /// Whether the caller sees the values of secure fields in this alert (its prefilled text and the
    /// typed answer): admins and the producer that created it do; responders never do.
    func seesSecrets(of alert: Alert) -> Bool {
        role == .admin || (role == .producer && alert.owner == name)
    }

    /// Who answers, as an alert's answer policy sees it.
    var answerer: Answerer { Answerer(name: name, groups: groups, isAdmin: role == .admin) }

    /// The owner a producer is held to; `nil` for roles that see every alert.
    var ownerFilter: String? {
        role == .producer ? name : nil
    }
}

/// What a bearer token may do. See docs/SECURITY.md, "Bearer tokens with roles", for the whole table.
public enum Role: String, Sendable, CaseIterable {
    /// Creates alerts, and reads, waits for, lists, follows and dismisses its own, secure values included.
    case producer
    /// Lists, reads and answers every alert; sees secure values only in the answer it gave itself.
    case responder
    /// Everything, secure values and metrics included.
    case admin
    /// `/metrics` and what needs no token (`/healthz`), nothing else: for a Prometheus scraper.
    case monitor

    /// Whether this role may do `action` at all (a producer is further held to its own alerts).
    func may(_ action: Action) -> Bool {
        switch (self, action) {
        case (.admin, _), (_, .readPublic), (.monitor, .readMetrics): true
        case (.monitor, _): false
        case (_, .list), (_, .read), (_, .follow): true
        case (.producer, .create), (.producer, .dismiss): true
        case (.responder, .answer): true
        // The MCP endpoint: its tools hold each call to the role's own rules (a responder may not ask).
        case (.producer, .mcp), (.responder, .mcp): true
        default: false
        }
    }

    /// What a request does, as far as roles are concerned.
    enum Action: Sendable {
        /// `/healthz`, `/openapi.yaml`: no token needed.
        case readPublic
        case create
        case list
        case read
        case answer
        case dismiss
        /// `/v1/events`.
        case follow
        /// `/metrics`.
        case readMetrics
        /// `/v1/rules`: the rules that answer alerts (admins only).
        case manageRules
        /// `POST /mcp`: the MCP tools, each held to the role's rules as its REST route is.
        case mcp

        /// How a 403 names it.
        var phrase: String {
            switch self {
            case .readPublic: "read this"
            case .create: "create alerts"
            case .list: "list alerts"
            case .read: "read alerts"
            case .answer: "answer alerts"
            case .dismiss: "dismiss alerts"
            case .follow: "follow events"
            case .readMetrics: "read metrics"
            case .manageRules: "manage rules"
            case .mcp: "use the MCP endpoint"
            }
        }
    }
}

/// Keeps web pages away from an alertd that runs without tokens.
///
/// Any page a browser shows can send a request to `http://127.0.0.1:8080`: a `text/plain` `fetch` in `no-cors` mode
/// needs no preflight, and alertd parses every body as JSON, so the page could create alerts. And a page whose host
/// name the attacker re-points at 127.0.0.1 (DNS rebinding) is same-origin with alertd, so it could read them. So
/// an open alertd refuses requests that carry an `Origin` it was not told to allow (browsers send one with every
/// cross-origin request and every POST; `curl` and scripts send none), and requests whose `Host` is a name other
/// than `localhost` (and `*.localhost`), the `--host` alertd listens on, or one it was told to allow. An IP address
/// as `Host` is always accepted: a browser sends one only to a page served from that very address, which no other
/// site can re-point.
public struct BrowserGuard: Sendable {
    /// Allowed origins: `scheme://host[:port]`, lower-cased.
    private let origins: Set<String>
    /// Allowed `Host` names, lower-cased, without port or trailing dot.
    private let hosts: Set<String>

    /// - Parameters:
    ///   - origins: the `Origin` values to allow (`--allow-origin`).
    ///   - hosts: the host names to allow (`--allow-host`), besides `localhost` and `listenHost`.
    ///   - listenHost: the address or name alertd listens on (`--host`).
    init(origins: [String], hosts: [String], listenHost: String) {
        self.origins = Set(origins.map(Self.normalizedOrigin))
        self.hosts = Set((hosts + [listenHost]).map { Self.hostName(Substring($0)) })
    }

    /// - Parameter allowingSameOrigin: let an `Origin` that names the request's own `Host` through (the responder's
    ///   page posts its forms to the alertd that served it; the `Host` check still applies).
    /// - Throws: `Problem` 403 (`origin-not-allowed`, `host-not-allowed`) for a request a web page may have sent.
    func check(_ headers: HTTPHeaders, allowingSameOrigin: Bool = false) throws(Problem) {
        if let origin = headers["origin"], !origins.contains(Self.normalizedOrigin(origin)),
           !(allowingSameOrigin && headers["host"].map({ Self.normalizedOrigin(origin) == "http://" + $0.lowercased() }) == true) {
            throw .alertd(403, "origin-not-allowed", "Origin not allowed", detail: """
                requests from web pages are refused: Origin '\(origin.prefix(256))' is not allowed (alertd runs \
                without access tokens; allow an origin with --allow-origin)
                """)
        }
        if let host = headers["host"], !allows(host: host) {
            throw .alertd(403, "host-not-allowed", "Host not allowed", detail: """
                Host '\(host.prefix(256))' is not a name alertd answers to without access tokens (it answers to \
                localhost, IP addresses, its --host, and names given with --allow-host)
                """)
        }
    }

    /// Whether a `Host` header value (`name`, `name:port`, `[v6]:port`) names this server.
    /// Runs on every request: it looks for the ASCII delimiters in the UTF-8 view (an index found there is a valid
    /// `String` index), since a search by `Character` breaks the text into graphemes.
    func allows(host value: String) -> Bool {
        let bytes = value.utf8
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return false }
            return Self.isAddress(value[bytes.index(after: bytes.startIndex)..<close])
        }
        var host = Substring(value)
        if let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes.lastIndex(of: UInt8(ascii: ":")) == colon {
            host = value[..<colon]
        }
        if Self.isAddress(host) { return true }
        let name = Self.hostName(host)
        return name == "localhost" || name.hasSuffix(".localhost") || hosts.contains(name)
    }

    /// Whether `text` is an IPv4 or IPv6 address (not a name).
    private static func isAddress(_ text: Substring) -> Bool {
        var buffer = in6_addr()
        let string = String(text)
        return inet_pton(AF_INET, string, &buffer) == 1 || inet_pton(AF_INET6, string, &buffer) == 1
    }

    /// Lower-cased, without brackets or one trailing dot.
    private static func hostName(_ text: Substring) -> String {
        var name = text.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name.hasSuffix(".") { name.removeLast() }
        return name
    }

    /// `origins` as `check` compares them, for a route that checks `Origin` itself (`POST /mcp` with tokens).
    static func origins(_ origins: [String]) -> Set<String> {
        Set(origins.map(normalizedOrigin))
    }

    /// Lower-cased, without a trailing slash.
    static func normalizedOrigin(_ origin: String) -> String {
        let lowered = origin.lowercased()
        return lowered.hasSuffix("/") ? String(lowered.dropLast()) : lowered
    }

    /// Whether `text` is an origin `--allow-origin` takes: `http` or `https`, `://`, a host and an optional port.
    public static func isOrigin(_ text: String) -> Bool {
        let lowered = normalizedOrigin(text)
        guard let scheme = ["http://", "https://"].first(where: lowered.hasPrefix) else { return false }
        let authority = lowered.dropFirst(scheme.count)
        return !authority.isEmpty && authority.allSatisfy { $0.isLetter || $0.isNumber || "-.:[]".contains($0) }
    }

    /// Whether `text` is a host name or address `--allow-host` takes.
    public static func isHostName(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 253 && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber
            || "-.:[]_".contains($0)) }
    }
}
