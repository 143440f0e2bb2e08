#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The key that signs the page's single-alert links and CSRF tokens.
///
/// With a data dir it is the file `page-key` there: 32 random bytes, made mode 0600 on the first start and read on
/// every later one, so links stay valid across restarts. In a cluster (`--database`) it is the one PostgreSQL keeps
/// for every instance (`shared`). Memory only, each process makes its own.
public struct PageKey: Sendable {
    let bytes: [UInt8]

    /// A key of this process only.
    public static func ephemeral() -> PageKey {
        PageKey(bytes: Base64URL.randomBytes(32))
    }

    /// A key kept elsewhere: the cluster's, in PostgreSQL, which `ClusterLinks` checked is 32 bytes.
    public static func shared(_ bytes: [UInt8]) -> PageKey {
        precondition(bytes.count == 32, "a page key is 32 bytes")
        return PageKey(bytes: bytes)
    }

    /// The key in `directory/page-key`, made there when missing.
    /// - Throws: `ConfigurationError` when the file cannot be made or read, or does not hold 32 bytes.
    public static func stored(in directory: String) throws(ConfigurationError) -> PageKey {
        let path = directory + "/page-key"
        func failure(_ what: String) -> ConfigurationError {
            ConfigurationError(description: "\(path): \(what) (\(String(cString: strerror(errno))))")
        }
        let made = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if made >= 0 {
            let bytes = Base64URL.randomBytes(32)
            let written = bytes.withUnsafeBytes { write(made, $0.baseAddress, $0.count) }
            let synced = fsync(made)
            close(made)
            guard written == 32, synced == 0 else {
                unlink(path)
                throw failure("cannot write the page key")
            }
            return PageKey(bytes: bytes)
        }
        guard errno == EEXIST else { throw failure("cannot make the page key") }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { throw failure("cannot read the page key") }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count == 32 else {
            throw ConfigurationError(description: "\(path) holds \(count) bytes, not a 32-byte page key: remove it to "
                + "make a new one (links signed before stop working)")
        }
        return PageKey(bytes: Array(buffer.prefix(32)))
    }
}
