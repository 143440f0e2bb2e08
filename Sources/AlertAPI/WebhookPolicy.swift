import Foundation

/// Which callback URLs a producer may give. The default allows loopback only, so alertd
/// cannot be used to reach other hosts on its network.
public struct WebhookPolicy: Sendable {
    /// One allowed destination: a host name, an IPv4 network in CIDR form, or an IPv6 address.
    enum Rule: Sendable, Equatable {
        case host(String)
        case network(address: UInt32, prefix: Int)
    }

    let rules: [Rule]

    /// Loopback only: `localhost`, `127.0.0.0/8`, `::1`.
    public static let loopback = WebhookPolicy(rules: [.host("localhost"), .network(address: 0x7F00_0000, prefix: 8),
                                                      .host("::1")])

    /// Parses a comma-separated list such as `hooks.example.com,10.1.0.0/16,127.0.0.1`.
    /// - Returns: nil when an entry is malformed.
    public init?(list: String) {
        var rules: [Rule] = []
        for entry in list.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) {
            guard !entry.isEmpty else { return nil }
            if let network = Self.network(entry) {
                rules.append(network)
            } else if entry.contains("/") {
                return nil
            } else {
                rules.append(.host(CallbackURL.ipv6(entry) ?? entry))
            }
        }
        guard !rules.isEmpty else { return nil }
        self.rules = rules
    }

    init(rules: [Rule]) {
        self.rules = rules
    }

    /// Why `text` may not be used as a callback, or nil when it may.
    func problem(with text: String) -> String? {
        let url: CallbackURL
        do {
            url = try CallbackURL(parsing: text)
        } catch {
            return error.reason
        }
        guard allows(url.host) else {
            return "callback host '\(url.host)' is not an allowed destination "
                + "(see --webhook-allow; default: loopback only)"
        }
        if url.scheme == .https, url.hostKind == .ipv6 {
            // swift-corelibs-foundation 6.3's URLSession fails these with NSURLErrorBadURL (-1000) before sending.
            return "https callbacks to an IPv6 address cannot be delivered; use http, or a host name"
        }
        return nil
    }

    private func allows(_ host: String) -> Bool {
        let address = CallbackURL.ipv4(host)
        return rules.contains { rule in
            switch rule {
            case .host(let name): name == host
            case .network(let network, let prefix):
                address.map { prefix == 0 || ($0 >> (32 - prefix)) == (network >> (32 - prefix)) } ?? false
            }
        }
    }

    private static func network(_ entry: String) -> Rule? {
        let parts = entry.split(separator: "/", maxSplits: 1).map(String.init)
        guard let address = CallbackURL.ipv4(parts[0]) else { return nil }
        guard parts.count == 2 else { return .network(address: address, prefix: 32) }
        guard let prefix = Int(parts[1]), (0...32).contains(prefix) else { return nil }
        return .network(address: address, prefix: prefix)
    }
}
