#if canImport(Glibc)
import Glibc
#endif

/// The process's limit on open file descriptors.
enum FileLimit {
    /// The hard `RLIMIT_NOFILE`, which `HTTPServer` raises the soft one to; `Int.max` when unlimited or unknown.
    static var hard: Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_max != rlim_t.max else {
            return .max
        }
        return Int(limit.rlim_max)
    }
}
