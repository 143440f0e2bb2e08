import Foundation

/// A callback URL as alertd accepts it: an absolute `http` or `https` URL (RFC 3986) of printable ASCII, whose host is
/// a name, a dotted IPv4 address or a bracketed IPv6 address, with a port in 1...65535 and no fragment.
///
/// Parsed by hand and strictly: Foundation's `URL(string:)` percent-encodes characters a URL may not hold (a space, a
/// line break) instead of refusing them, and accepts ports a socket cannot use.
struct CallbackURL: Sendable, Equatable {
    enum Scheme: String, Sendable {
        case http
        case https

        var defaultPort: Int { self == .http ? 80 : 443 }
    }

    /// What kind of host the URL names.
    enum HostKind: Sendable {
        case name
        case ipv4
        case ipv6
    }

    /// Why a text is not a callback URL alertd accepts; `reason` is the 422's detail.
    struct Invalid: Error {
        let reason: String
    }

    /// Longest callback accepted, in bytes.
    static let maxLength = 2048

    /// The URL as given.
    let text: String
    let scheme: Scheme
    /// `user:password` as written (percent-encoded), or nil without.
    let userinfo: String?
    /// Lower-cased; an IPv6 address in its canonical text, without brackets.
    let host: String
    let hostKind: HostKind
    /// The port as written, or nil for the scheme's default.
    let writtenPort: Int?
    /// The path as written, `/` when empty.
    let path: String
    /// The query as written (without `?`), or nil without.
    let query: String?

    /// The port to connect to.
    var port: Int { writtenPort ?? scheme.defaultPort }

    /// The `Host` header's value: the host (bracketed when IPv6) and the port when one was written.
    var authority: String {
        let host = hostKind == .ipv6 ? "[\(host)]" : host
        return writtenPort.map { "\(host):\($0)" } ?? host
    }

    /// What the request line asks for: the path and the query.
    var target: String {
        query.map { "\(path)?\($0)" } ?? path
    }

    /// Whether the URL carries user information or a query, which may hold credentials (`?sig=…`).
    var hasCredentials: Bool {
        userinfo != nil || query != nil
    }

    /// The URL without its user information and query, for whoever may not see them.
    var redacted: String {
        "\(scheme.rawValue)://\(authority)\(path)"
    }

    /// The URL without its user information, and that as Basic credentials (percent-decoded), nil without.
    var withoutUserinfo: (url: CallbackURL, credential: NotifyCredential?) {
        guard let userinfo, let bare = try? CallbackURL(parsing: "\(scheme.rawValue)://\(authority)\(target)") else {
            return (self, nil)
        }
        return (bare, NotifyCredential(basic: userinfo.removingPercentEncoding ?? userinfo))
    }

    /// Parses and checks `text`.
    /// - Throws: `Invalid` naming the first thing that is wrong.
    init(parsing text: String) throws(Invalid) {
        let bytes = Array(text.utf8)
        guard bytes.count <= Self.maxLength else { throw Invalid(reason: "callback is longer than 2048 bytes") }
        if let bad = bytes.first(where: { !Self.isURLCharacter($0) }) {
            throw Invalid(reason: "callback contains \(Self.describe(bad)), which a URL may not hold")
        }
        for (offset, byte) in bytes.enumerated() where byte == UInt8(ascii: "%") {
            guard offset + 2 < bytes.count, bytes[offset + 1].isHexDigit, bytes[offset + 2].isHexDigit else {
                throw Invalid(reason: "callback has a '%' that is not followed by two hex digits")
            }
        }
        guard let separator = text.range(of: "://"),
              let scheme = Scheme(rawValue: text[..<separator.lowerBound].lowercased())
        else { throw Invalid(reason: "callback must be an absolute http or https URL") }
        guard !text.contains("#") else {
            throw Invalid(reason: "callback must not have a fragment ('#'): it is never sent")
        }
        let rest = text[separator.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let afterAuthority = rest[authorityEnd...]
        var hostPort = rest[..<authorityEnd]
        let ats = hostPort.filter { $0 == "@" }.count
        guard ats <= 1 else { throw Invalid(reason: "callback user information must percent-encode '@'") }
        if let at = hostPort.firstIndex(of: "@") {
            userinfo = String(hostPort[..<at])
            guard !hostPort[..<at].contains(where: { $0 == "[" || $0 == "]" }) else {
                throw Invalid(reason: "callback user information must percent-encode '[' and ']'")
            }
            hostPort = hostPort[hostPort.index(after: at)...]
        } else {
            userinfo = nil
        }
        let portText: Substring?
        if hostPort.hasPrefix("[") {
            guard let close = hostPort.firstIndex(of: "]"), let address = Self.ipv6(hostPort[hostPort.index(after:
                hostPort.startIndex)..<close])
            else { throw Invalid(reason: "callback host is not a valid bracketed IPv6 address") }
            (host, hostKind) = (address, .ipv6)
            let after = hostPort[hostPort.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else {
                throw Invalid(reason: "callback has text after its IPv6 host")
            }
            portText = after.isEmpty ? nil : after.dropFirst()
        } else {
            let colon = hostPort.firstIndex(of: ":")
            let name = hostPort[..<(colon ?? hostPort.endIndex)].lowercased()
            portText = colon.map { hostPort[hostPort.index(after: $0)...] }
            guard !name.isEmpty else { throw Invalid(reason: "callback URL has no host") }
            guard name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == "_") })
            else { throw Invalid(reason: "callback host '\(name)' is not a host name or an IP address") }
            if name.allSatisfy({ $0.isNumber || $0 == "." }) {
                guard Self.ipv4(name) != nil else {
                    throw Invalid(reason: "callback host '\(name)' is not an IPv4 address")
                }
                hostKind = .ipv4
            } else {
                hostKind = .name
            }
            host = name
        }
        if let portText {
            guard (1...5).contains(portText.count), portText.allSatisfy(\.isNumber), let port = Int(portText),
                  (1...65535).contains(port)
            else { throw Invalid(reason: "callback port must be a number from 1 to 65535") }
            writtenPort = port
        } else {
            writtenPort = nil
        }
        let queryStart = afterAuthority.firstIndex(of: "?")
        let path = afterAuthority[..<(queryStart ?? afterAuthority.endIndex)]
        query = queryStart.map { String(afterAuthority[afterAuthority.index(after: $0)...]) }
        guard !afterAuthority.contains(where: { $0 == "[" || $0 == "]" }) else {
            throw Invalid(reason: "callback path and query must percent-encode '[' and ']'")
        }
        self.path = path.isEmpty ? "/" : String(path)
        self.text = text
        self.scheme = scheme
    }

    /// A dotted-quad IPv4 address as a number, or nil.
    static func ipv4(_ text: some StringProtocol) -> UInt32? {
        let octets = text.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4 else { return nil }
        var value: UInt32 = 0
        for octet in octets {
            guard let byte = UInt8(octet), String(byte) == octet else { return nil }
            value = value << 8 | UInt32(byte)
        }
        return value
    }

    /// An IPv6 address in its canonical text (`::1`), or nil when `text` is not one (zone ids are not).
    static func ipv6(_ text: some StringProtocol) -> String? {
        var address = in6_addr()
        guard inet_pton(AF_INET6, String(text), &address) == 1 else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Printable ASCII but the characters RFC 3986 never allows in a URL (space, `"`, `<`, `>`, `\`, `^`, `` ` ``,
    /// `{`, `|`, `}`).
    private static func isURLCharacter(_ byte: UInt8) -> Bool {
        (0x21...0x7E).contains(byte) && !#""<>\^`{|}"#.utf8.contains(byte)
    }

    private static func describe(_ byte: UInt8) -> String {
        switch byte {
        case 0x20: "a space"
        case 0x0A, 0x0D: "a line break"
        case ..<0x20, 0x7F: "a control character"
        case 0x80...: "a non-ASCII character (percent-encode it)"
        default: "'\(Character(Unicode.Scalar(byte)))'"
        }
    }
}

private extension UInt8 {
    var isHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
    }
}
