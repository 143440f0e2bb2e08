import Foundation
import Locking
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The low-level HTTP client for alertd: one method per operation of `openapi.yaml`, plus `waitForResult`, which
/// keeps long-polling until an alert resolves.
///
/// Every method throws only `AlertClientError`. Cancelling the calling Task cancels the in-flight request and throws
/// `.cancelled`; it never withdraws an alert (call `dismiss(_:)` for that).
public final class AlertClient: Sendable {
    /// The server's base URL, such as `http://127.0.0.1:8080` (a path prefix is kept).
    public let baseURL: URL
    /// Seconds each long-poll of `waitForResult` asks the server to hold the request (0 to 300).
    public let pollWait: Int
    /// The session requests go through.
    public let session: URLSession
    /// The server's instance identity (`X-Alertd-Instance`) as first seen in an answer: a `404` for an alert from
    /// another instance means the server restarted and lost it.
    let firstInstance = Lock<String?>(nil)
    /// The bearer token sent with every request, or `nil` for an alertd without tokens.
    public let token: String?
    /// Time-out of a request that does not wait; a waiting request gets `wait` seconds more.
    let requestTimeout: TimeInterval
    /// Whether `session` was made here (and so is invalidated when the client goes away).
    private let ownsSession: Bool

    /// The URL used when `ALERTD_URL` is not set.
    public static let defaultURL = URL(string: "http://127.0.0.1:8080")!

    /// - Parameters:
    ///   - baseURL: The server, such as `http://127.0.0.1:8080`.
    ///   - session: The session to use; by default one made by `makeSession()`, owned by this client.
    ///   - pollWait: Seconds each long-poll of `waitForResult` waits (clamped to 0...300). Default 60.
    ///   - requestTimeout: Seconds a request may take beyond its `wait`. Default 30.
    ///   - token: The bearer token to send (`Authorization: Bearer <token>`); `nil` for none.
    public init(
        baseURL: URL, session: URLSession? = nil, pollWait: Int = 60, requestTimeout: TimeInterval = 30,
        token: String? = nil
    ) {
        self.baseURL = baseURL
        self.token = token.flatMap { $0.isEmpty ? nil : $0 }
        self.session = session ?? Self.makeSession()
        ownsSession = session == nil
        self.pollWait = min(max(pollWait, 0), 300)
        self.requestTimeout = requestTimeout
    }

    deinit {
        if ownsSession { session.finishTasksAndInvalidate() }
    }

    /// A client for `ALERTD_URL` from the environment (`http://127.0.0.1:8080` when it is unset or empty), with the
    /// token in `ALERTD_TOKEN`, else the first line of the file named by `ALERTD_TOKEN_FILE`.
    /// - Parameter environment: The environment to read; the process's by default.
    /// - Throws: `.configuration`, naming the variable, when `ALERTD_URL` is not an http(s) URL with a host, or
    ///   `ALERTD_TOKEN_FILE` names a file that cannot be read or has no token on its first line. A typo there is
    ///   never papered over with the default server or no token.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(AlertClientError) -> AlertClient {
        var url = defaultURL
        if let text = environment["ALERTD_URL"], !text.isEmpty {
            guard let parsed = parseBaseURL(text) else {
                throw .configuration("ALERTD_URL '\(text)' is not an http(s) URL with a host (such as "
                    + "http://127.0.0.1:8080)")
            }
            url = parsed
        }
        let token: String?
        do {
            token = try Self.token(from: environment)
        } catch {
            let path = environment["ALERTD_TOKEN_FILE"] ?? ""
            throw .configuration("cannot read ALERTD_TOKEN_FILE '\(path)': \(error.localizedDescription)")
        }
        if token == nil, let path = environment["ALERTD_TOKEN_FILE"], !path.isEmpty {
            throw .configuration("ALERTD_TOKEN_FILE '\(path)' has no token on its first line")
        }
        return AlertClient(baseURL: url, token: token)
    }

    /// The token `ALERTD_TOKEN` gives, else the first line of the file `ALERTD_TOKEN_FILE` names, else `nil`.
    /// - Throws: the file's read error when `ALERTD_TOKEN_FILE` names a file that cannot be read.
    public static func token(from environment: [String: String]) throws -> String? {
        if let token = environment["ALERTD_TOKEN"], !token.isEmpty { return token }
        guard let path = environment["ALERTD_TOKEN_FILE"], !path.isEmpty else { return nil }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let first = text.split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) }
        return first.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Parses a base URL given by a person: `http://host:port[/prefix]`, or `host:port` (http is assumed).
    /// - Returns: `nil` unless it is an http(s) URL with a host.
    public static func parseBaseURL(_ text: String) -> URL? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let withScheme = trimmed.contains("://") ? trimmed : "http://" + trimmed
        guard let components = URLComponents(string: withScheme),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = components.host, !host.isEmpty,
              components.query == nil, components.fragment == nil
        else { return nil }
        return components.url
    }

    /// A session suited to long-polling: up to 64 connections per host, no cache, no cookies, and time-outs long
    /// enough for the longest `wait` (300 s) plus margin.
    public static func makeSession() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 64
        configuration.timeoutIntervalForRequest = 330
        configuration.timeoutIntervalForResource = 330
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpAdditionalHeaders = ["User-Agent": "AlertClient/1", "Accept": "application/json"]
        return URLSession(configuration: configuration)
    }
}
