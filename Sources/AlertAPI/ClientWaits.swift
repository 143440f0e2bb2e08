import Locking

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How many waiting requests (long-polls with `wait` and event streams) each client holds. A wait
/// costs no thread, but it holds a connection, a store waiter and memory until its deadline; one
/// client must not be able to hold them all.
///
/// A client is its token's name when access tokens are configured and the request carried one,
/// else its IP address; an IPv6 address counts by its /64, which one host can fill at will.
final class ClientWaits: Sendable {
    /// Most waits one client may hold; 0: no limit.
    let limit: Int
    private let counts = Lock([String: Int]())

    init(limit: Int) {
        self.limit = limit
    }

    /// Takes a slot for `client`; false when it holds `limit` already.
    func acquire(_ client: String) -> Bool {
        counts.withLock { counts in
            let held = counts[client, default: 0]
            guard limit == 0 || held < limit else { return false }
            counts[client] = held + 1
            return true
        }
    }

    /// Gives back a slot taken by `acquire`.
    func release(_ client: String) {
        counts.withLock { counts in
            let held = counts[client, default: 0]
            counts[client] = held > 1 ? held - 1 : nil
        }
    }

    /// The key a request's waits count under: `token:<name>` for a caller with a token, else
    /// `ip:<address>` (an IPv6 address reduced to its /64); nil when neither is known.
    static func key(caller: Caller, address: String?) -> String? {
        if let name = caller.name { return "token:" + name }
        guard let address else { return nil }
        return "ip:" + (network64(of: address) ?? address)
    }

    /// The /64 network of an IPv6 address as text (`2001:db8:1:2::/64`); an IPv4-mapped address
    /// as its IPv4 text; nil for anything that is not IPv6.
    static func network64(of address: String) -> String? {
        guard address.contains(":") else { return nil }
        var ipv6 = in6_addr()
        guard inet_pton(AF_INET6, address, &ipv6) == 1 else { return nil }
        let mapped = withUnsafeBytes(of: ipv6) { bytes in
            bytes.prefix(10).allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff
                ? "\(bytes[12]).\(bytes[13]).\(bytes[14]).\(bytes[15])" : nil
        }
        if let mapped { return mapped }
        withUnsafeMutableBytes(of: &ipv6) { bytes in
            for index in 8..<16 { bytes[index] = 0 }
        }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        guard inet_ntop(AF_INET6, &ipv6, &text, socklen_t(text.count)) != nil,
              let end = text.firstIndex(of: 0) else { return nil }
        return String(decoding: text[..<end].map { UInt8(bitPattern: $0) }, as: UTF8.self) + "/64"
    }
}
