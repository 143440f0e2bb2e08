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

extension SocketAddress {
    /// The IP address of `address` as text (`127.0.0.1`, `::1`), or nil for other families.
    static func text(of address: UnsafePointer<sockaddr>) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = Int32(address.pointee.sa_family)
        let written: UnsafePointer<CChar>?
        switch family {
        case AF_INET:
            written = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
                withUnsafePointer(to: ipv4.pointee.sin_addr) { inet_ntop(AF_INET, $0, &buffer, socklen_t(buffer.count)) }
            }
        case AF_INET6:
            written = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
                withUnsafePointer(to: ipv6.pointee.sin6_addr) { inet_ntop(AF_INET6, $0, &buffer, socklen_t(buffer.count)) }
            }
        default:
            written = nil
        }
        guard written != nil, let end = buffer.firstIndex(of: 0) else { return nil }
        return String(decoding: buffer[..<end].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
