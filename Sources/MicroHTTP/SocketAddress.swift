#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 socket address, resolved from a host string and a port.
struct SocketAddress {
    var storage = sockaddr_storage()
    let isIPv6: Bool

    /// Resolves `host` (a literal address or a name) and sets `port`.
    init?(host: String, port: Int) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(list) }
        // Prefer IPv4 when a name has both, as most users expect of "localhost".
        var chosen = first.pointee
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            if entry.pointee.ai_family == AF_INET { chosen = entry.pointee; break }
            cursor = entry.pointee.ai_next
        }
        guard let address = chosen.ai_addr else { return nil }
        isIPv6 = chosen.ai_family == AF_INET6
        withUnsafeMutableBytes(of: &storage) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(chosen.ai_addrlen)))
        }
    }
}
