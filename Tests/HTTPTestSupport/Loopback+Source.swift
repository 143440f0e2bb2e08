#if canImport(Glibc)
import Glibc
#endif

extension Loopback {
    /// Binds socket `fd` to the loopback source address `127.0.0.<host>` (any port), so that a
    /// test can play several clients: the whole 127.0.0.0/8 is the loopback interface on Linux.
    /// Returns `bind(2)`'s result.
    public static func bindSource(_ fd: Int32, host: UInt8) -> Int32 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.\(host)")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    /// Raises this process's soft `RLIMIT_NOFILE` to its hard limit; returns the new soft limit.
    @discardableResult
    public static func raiseFileLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        }
        return limit.rlim_cur == rlim_t.max ? Int.max : Int(limit.rlim_cur)
    }
}
