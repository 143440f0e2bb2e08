/// Why an `HTTPServer` could not start.
public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    private enum Code: Sendable {
        case badAddress(String)
        case startFailed(host: String, port: Int, errno: Int32)
    }

    private let code: Code

    /// `host` is neither an IP address nor a name that resolves.
    public static func badAddress(_ host: String) -> HTTPServerError { .init(code: .badAddress(host)) }

    /// libmicrohttpd refused to start (address in use, no permission, ...).
    public static func startFailed(host: String, port: Int, errno: Int32) -> HTTPServerError {
        .init(code: .startFailed(host: host, port: port, errno: errno))
    }

    public var description: String {
        switch code {
        case .badAddress(let host):
            "cannot listen on '\(host)': not an IP address or a resolvable host name"
        case .startFailed(let host, let port, let number):
            "cannot listen on \(host):\(port): \(String(cString: strerror(number)))"
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
