#if canImport(Glibc)
import Glibc
#endif

/// 127.0.0.1 socket addresses for the tests' clients, proxies and receivers.
public enum Loopback {
    /// Calls `body` with the address 127.0.0.1:`port` as a `sockaddr` and its length.
    public static func withAddress<T>(port: Int, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    /// Connects socket `fd` to 127.0.0.1:`port`; returns `connect(2)`'s result.
    public static func connect(_ fd: Int32, port: Int) -> Int32 {
        withAddress(port: port) { Glibc.connect(fd, $0, $1) }
    }
}
