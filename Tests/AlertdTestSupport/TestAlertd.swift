import AlertJournal
import AlertServer
import Foundation
import HTTPTestSupport
import MicroHTTP

/// A real alertd in the test process, on 127.0.0.1, built by the same `AlertdApp` as `alertd`: served over HTTP
/// (`.http`), or without a server (`.inProcess`), its requests routed through `AlertdApp.respond(to:)`. Both are
/// reached with `exchange`. (The `alertd` executable itself: `AlertdProcess`.)
public enum TestAlertd {
    /// The test configuration: loopback, `port` (0 picks a free one), no log output, a short
    /// shutdown grace; `configure` adjusts it.
    public static func configuration(
        port: Int = 0, _ configure: (inout AlertdConfiguration) -> Void = { _ in }
    ) -> AlertdConfiguration {
        var configuration = AlertdConfiguration()
        configuration.http.host = "127.0.0.1"
        configuration.http.port = port
        configuration.shutdownGrace = .seconds(2)
        configuration.logDescriptor = nil  // tests read responses, not logs; log tests run the real binary
        configure(&configuration)
        return configuration
    }

    /// Starts a server; the caller shuts it down (`shutdown()`).
    public static func start(
        port: Int = 0, transport: AlertdApp.Transport = .http,
        _ configure: (inout AlertdConfiguration) -> Void = { _ in }
    ) throws -> AlertdApp {
        try AlertdApp(configuration: configuration(port: port, configure), transport: transport)
    }

    /// Starts a server, runs `body` with it, and shuts it down whether `body` throws or not. A data dir that this
    /// process closed a moment ago may still read as held by it (`JournalOpenError.isHeldByThisProcess`): that passes.
    public static func with(
        transport: AlertdApp.Transport = .http, _ configure: (inout AlertdConfiguration) -> Void = { _ in },
        _ body: (AlertdApp) async throws -> Void
    ) async throws {
        let app = try await TestTime.retrying(while: JournalOpenError.isHeldByThisProcess) {
            try start(transport: transport, configure)
        }
        do {
            try await body(app)
        } catch {
            await app.shutdown()
            throw error
        }
        await app.shutdown()
    }
}

extension AlertdApp {
    /// Waits (`TestTime.until`) until the store holds `count` waiters: long-polls, blocking queries and event
    /// streams, as `/metrics` `alertd_waiters` counts them. How a test knows that the requests it started wait
    /// before it acts, instead of sleeping and hoping.
    /// - Returns: whether it did; the count it holds last.
    public func waitForWaiters(_ count: Int) async -> (held: Bool, waiters: Int) {
        let store = store
        let held = await TestTime.until { await store.statistics.waiters == count }
        return (held, await store.statistics.waiters)
    }

    /// Sends one request and returns the response: over a connection of its own to the server (`.http`), or
    /// through the routes in process (`.inProcess`), as a request from 127.0.0.1 with `Host: 127.0.0.1` and, with a
    /// body, its `Content-Length`; the query is percent-decoded as libmicrohttpd decodes it.
    public func exchange(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
        timeout: Double = 30
    ) async throws -> WireResponse {
        guard transport == .inProcess else {
            return try await RawHTTP.exchange(RawHTTP.request(method, target, headers: headers, body: body),
                                              port: port, timeout: timeout)
        }
        var fields = [("host", "127.0.0.1")] + headers.map { ($0.0.lowercased(), $0.1) }
        if let body { fields.append(("content-length", String(body.count))) }
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let query = parts.count > 1 ? Self.queryItems(parts[1]) : []
        let request = HTTPRequest(method: method, path: String(parts[0]), query: query, headers: HTTPHeaders(fields),
                                  body: body ?? [], clientAddress: "127.0.0.1")
        let response = await respond(to: request)
        var names: [String: String] = [:]
        for field in response.headers {
            let name = field.name.lowercased()
            names[name] = names[name].map { "\($0), \(field.value)" } ?? field.value
        }
        return WireResponse(status: response.status, headers: names, body: method == "HEAD" ? [] : response.body)
    }

    /// `name=value&…`, each part percent-decoded and `+` read as a space.
    private static func queryItems(_ text: Substring) -> [HTTPRequest.QueryItem] {
        text.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return HTTPRequest.QueryItem(name: decoded(parts[0]), value: parts.count > 1 ? decoded(parts[1]) : "")
        }
    }

    private static func decoded(_ text: Substring) -> String {
        let plain = text.replacingOccurrences(of: "+", with: " ")
        return plain.removingPercentEncoding ?? plain
    }
}

extension JournalOpenError {
    /// Whether `error` says that this very process holds the data dir. Right after this process closed a journal,
    /// that passes by itself: a child that another test spawned at that moment holds a copy of the lock's open file
    /// (and with it the `flock`) from its fork until its exec closes it.
    public static func isHeldByThisProcess(_ error: any Error) -> Bool {
        (error as? JournalOpenError)?.reason == .locked(pid: getpid())
    }
}
