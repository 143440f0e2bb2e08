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

/// An IPv4 or IPv6 network: an address and a prefix length (`10.0.0.0/8`, `fd00::/8`, or a single
/// address such as `127.0.0.1`). IPv4 addresses are kept as IPv4-mapped IPv6 (`::ffff:a.b.c.d`), so
/// `127.0.0.1` matches a peer that reaches an IPv6 listener as `::ffff:127.0.0.1`.
public struct IPNetwork: Sendable, Equatable, CustomStringConvertible {
    /// The network's address, 16 bytes (IPv4 mapped), bits past the prefix cleared.
    let bytes: [UInt8]
    /// Leading bits that must match, 0–128 (an IPv4 prefix plus 96).
    let prefix: Int
    public let description: String

    /// Parses `address` or `address/prefix`, IPv4 or IPv6; nil when malformed.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let (address, isIPv4) = Self.parse(parts[0]) else { return nil }
        let width = isIPv4 ? 32 : 128
        var prefix = width
        if parts.count == 2 {
            guard let given = Int(parts[1]), String(given) == parts[1], (0...width).contains(given) else { return nil }
            prefix = given
        }
        self.prefix = prefix + (isIPv4 ? 96 : 0)
        bytes = Self.masked(address, prefix: self.prefix)
        description = text
    }

    /// Whether `address` (an address as text, as `HTTPRequest.clientAddress` has it) is in this network.
    public func contains(_ address: String) -> Bool {
        guard let (parsed, _) = Self.parse(address) else { return false }
        return Self.masked(parsed, prefix: prefix) == bytes
    }

    /// `text` in the form alertd writes addresses (`inet_ntop`; an IPv4-mapped address as plain IPv4),
    /// or nil when it is not an IP address.
    static func normalized(_ text: String) -> String? {
        guard let (bytes, isIPv4) = parse(text) else { return nil }
        if isIPv4 { return bytes[12...].map(String.init).joined(separator: ".") }
        var ipv6 = in6_addr()
        withUnsafeMutableBytes(of: &ipv6) { $0.copyBytes(from: bytes) }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        guard inet_ntop(AF_INET6, &ipv6, &buffer, socklen_t(buffer.count)) != nil,
              let end = buffer.firstIndex(of: 0) else { return nil }
        return String(decoding: buffer[..<end].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The /64 network of an IPv6 address as text (`2001:db8:1:2::/64`); an IPv4-mapped address
    /// as its IPv4 text; nil for anything that is not IPv6.
    public static func network64(of address: String) -> String? {
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

    /// 16 bytes (IPv4 mapped) and whether the address is IPv4 (written so, or IPv4-mapped IPv6).
    private static func parse(_ text: String) -> ([UInt8], Bool)? {
        var bare = Substring(text)
        if bare.hasPrefix("["), bare.hasSuffix("]") { bare = bare.dropFirst().dropLast() }
        var ipv4 = in_addr()
        if inet_pton(AF_INET, String(bare), &ipv4) == 1 {
            return ([UInt8](repeating: 0, count: 10) + [0xff, 0xff] + withUnsafeBytes(of: ipv4) { Array($0) }, true)
        }
        var ipv6 = in6_addr()
        guard inet_pton(AF_INET6, String(bare), &ipv6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: ipv6) { Array($0) }
        return (bytes, bytes.prefix(10).allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff)
    }

    private static func masked(_ bytes: [UInt8], prefix: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let bits = min(8, max(0, prefix - index * 8))
            return bits == 8 ? byte : byte & ~(UInt8(0xff) >> bits)
        }
    }
}

extension [IPNetwork] {
    /// Whether any network holds `address`.
    func contain(_ address: String) -> Bool {
        contains { $0.contains(address) }
    }
}

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
