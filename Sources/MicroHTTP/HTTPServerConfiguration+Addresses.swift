#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension HTTPServerConfiguration {
    /// The IP addresses `host` stands for, as text (`127.0.0.1`, `::1`), resolved as the server resolves it to
    /// bind; nil when it does not resolve (an unknown name, or not an address at all).
    public var hostAddresses: [String]? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var list: UnsafeMutablePointer<addrinfo>?
        guard !host.isEmpty, getaddrinfo(host, "0", &hints, &list) == 0 else { return nil }
        defer { freeaddrinfo(list) }
        var addresses: [String] = []
        var cursor = list
        while let entry = cursor {
            if let address = entry.pointee.ai_addr, let text = SocketAddress.text(of: address),
               !addresses.contains(text) {
                addresses.append(text)
            }
            cursor = entry.pointee.ai_next
        }
        return addresses.isEmpty ? nil : addresses
    }
}
