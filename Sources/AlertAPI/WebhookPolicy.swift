import Foundation
import MicroHTTP

/// Which callback destinations a producer may give, as Gitea's webhook allow list has them: named sets of addresses
/// (`loopback`, `private`, `external`, `*`), networks and addresses (IPv4 or IPv6, CIDR), and host names. The default
/// is `external`: public addresses only, so alertd cannot be used to reach its own loopback or its network.
///
/// Two checks. At create (`problem(with:)`), on the URL as written: a literal address must be in the list's sets or
/// networks; a name must be listed, or the list must hold a set or network its addresses may fall in. At connect
/// (`admits(_:for:)`), on each address the host resolves to, just before connecting to that very address: it must be
/// in the list's sets or networks, or be `external` when the callback's name is listed. So a name that resolves to
/// 127.0.0.1 or 169.254.169.254 is refused unless `loopback` or that network is listed.
public struct WebhookPolicy: Sendable {
    /// A named set of addresses.
    enum AddressSet: String, Sendable, CaseIterable {
        /// 127.0.0.0/8 and ::1.
        case loopback
        /// RFC 1918 (10/8, 172.16/12, 192.168/16) and RFC 4193 (fc00::/7).
        case `private`
        /// Any address that is none of the special-purpose ones in `special` (public unicast).
        case external
        /// Every address.
        case all = "*"

        func contains(_ address: String) -> Bool {
            switch self {
            case .loopback: Self.loopbackNetworks.contains { $0.contains(address) }
            case .private: Self.privateNetworks.contains { $0.contains(address) }
            case .external: Self.every.contains(address) && !Self.special.contains { $0.contains(address) }
            case .all: Self.every.contains(address)
            }
        }

        /// Every address, IPv4 (mapped) and IPv6: what `contains` of it says is whether a text is an address.
        private static let every = IPNetwork("::/0")!

        private static let loopbackNetworks = networks("127.0.0.0/8", "::1")
        private static let privateNetworks = networks("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7")
        /// Not external: this host and "this network", loopback, private, shared (CGNAT), link-local (cloud
        /// metadata at 169.254.169.254), IETF protocol assignments, benchmarking, multicast, reserved and broadcast;
        /// in IPv6 the unspecified, loopback and IPv4-compatible addresses, NAT64 and 6to4 (which carry an IPv4
        /// address), unique local, link-local and multicast. IPv4-mapped addresses count as their IPv4 address.
        private static let special = networks(
            "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
            "192.0.0.0/24", "192.168.0.0/16", "198.18.0.0/15", "224.0.0.0/4", "240.0.0.0/4",
            "::/96", "64:ff9b::/96", "64:ff9b:1::/48", "2002::/16", "fc00::/7", "fe80::/10", "ff00::/8")

        private static func networks(_ texts: String...) -> [IPNetwork] {
            texts.compactMap(IPNetwork.init)
        }
    }

    /// One entry of the list.
    enum Rule: Sendable, Equatable {
        /// A host name, lower-cased: callbacks may name it, and it is delivered to at its `external` addresses.
        case host(String)
        /// An address or network, IPv4 or IPv6.
        case network(IPNetwork)
        case set(AddressSet)
    }

    let rules: [Rule]

    /// The default: public addresses only.
    public static let external = WebhookPolicy(rules: [.set(.external)])

    /// Loopback only (what a receiver on this machine needs: `--webhook-allow loopback`).
    public static let loopback = WebhookPolicy(rules: [.set(.loopback)])

    /// Parses a comma-separated list such as `external,hooks.internal,10.1.0.0/16,[fd00::1]`.
    /// - Returns: nil when an entry is malformed.
    public init?(list: String) {
        var rules: [Rule] = []
        for entry in list.split(separator: ",", omittingEmptySubsequences: false)
            .map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) {
            if let set = AddressSet(rawValue: entry) {
                rules.append(.set(set))
            } else if let network = IPNetwork(entry) {
                rules.append(.network(network))
            } else if Self.isHostName(entry) {
                rules.append(.host(entry))
            } else {
                return nil
            }
        }
        guard !rules.isEmpty else { return nil }
        self.rules = rules
    }

    init(rules: [Rule]) {
        self.rules = rules
    }

    /// Why `text` may not be used as a callback, or nil when it may (its addresses are checked again at connect).
    func problem(with text: String) -> String? {
        let url: CallbackURL
        do {
            url = try CallbackURL(parsing: text)
        } catch {
            return error.reason
        }
        let allowed = url.hostKind == .name
            ? rules.contains { $0 == .host(url.host) || !$0.isHost }
            : admitsAddress(url.host)
        guard allowed else {
            return "callback host '\(url.host)' is not an allowed destination "
                + "(see --webhook-allow; default: external addresses only)"
        }
        if url.scheme == .https, url.hostKind == .ipv6 {
            // swift-corelibs-foundation 6.3's URLSession fails these with NSURLErrorBadURL (-1000) before sending.
            return "https callbacks to an IPv6 address cannot be delivered; use http, or a host name"
        }
        return nil
    }

    /// Whether alertd may connect to `address` (as text, as `getnameinfo` writes it) for a callback to `host`.
    func admits(_ address: String, for host: String) -> Bool {
        admitsAddress(address) || (rules.contains(.host(host)) && AddressSet.external.contains(address))
    }

    private func admitsAddress(_ address: String) -> Bool {
        rules.contains { rule in
            switch rule {
            case .host: false
            case .network(let network): network.contains(address)
            case .set(let set): set.contains(address)
            }
        }
    }

    /// Letters, digits, `-`, `.` and `_`, not all digits and dots (that would be a malformed IPv4 address).
    private static func isHostName(_ entry: String) -> Bool {
        !entry.isEmpty
            && entry.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == "_") }
            && !entry.allSatisfy { $0.isNumber || $0 == "." }
    }
}

private extension WebhookPolicy.Rule {
    var isHost: Bool {
        if case .host = self { true } else { false }
    }
}
