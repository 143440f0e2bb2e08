#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MicroHTTP

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
