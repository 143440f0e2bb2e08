/// Why an `HTTPServer` could not start.
public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    private enum Code: Sendable {
        case badAddress(String)
        case startFailed(host: String, port: Int, errno: Int32)
        case libraryTooOld(found: String, needed: String)
    }

    private let code: Code

    /// `host` is neither an IP address nor a name that resolves.
    public static func badAddress(_ host: String) -> HTTPServerError { .init(code: .badAddress(host)) }

    /// libmicrohttpd refused to start (address in use, no permission, ...).
    public static func startFailed(host: String, port: Int, errno: Int32) -> HTTPServerError {
        .init(code: .startFailed(host: host, port: port, errno: errno))
    }

    /// The libmicrohttpd loaded is older than `HTTPServer.minimumLibraryVersion`.
    public static func libraryTooOld(found: String, needed: String) -> HTTPServerError {
        .init(code: .libraryTooOld(found: found, needed: needed))
    }

    public var description: String {
        switch code {
        case .badAddress(let host):
            "cannot listen on '\(host)': not an IP address or a resolvable host name"
        case .startFailed(let host, let port, let number):
            "cannot listen on \(host):\(port): \(String(cString: strerror(number)))"
        case .libraryTooOld(let found, let needed):
            "libmicrohttpd \(found) is loaded, and \(needed) or later is needed (its answers to broken requests "
                + "are those of \(needed)); install a newer libmicrohttpd (Debian 12: libmicrohttpd12)"
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
