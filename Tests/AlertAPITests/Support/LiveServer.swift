@testable import AlertAPI
import AlertCore
import AlertdTestSupport
import Foundation
import JSON
import Testing

/// A real alertd in the test process: on an ephemeral port, driven over real HTTP (`.http`), or without a server,
/// its requests routed through `AlertdApp.respond(to:)` (`.inProcess`: no port, for the routes' own behaviour).
/// The requests below work either way; `port` is 0 in process.
struct LiveServer {
    let app: AlertdApp
    var port: Int { app.port }

    /// Starts a server (on port 0, or in process), runs `body` against it, then shuts it down.
    static func with(
        transport: AlertdApp.Transport = .http, _ configure: (inout AlertdConfiguration) -> Void = { _ in },
        _ body: (LiveServer) async throws -> Void
    ) async throws {
        try await TestAlertd.with(transport: transport, configure) { app in try await body(LiveServer(app: app)) }
    }

    // MARK: requests

    func send(
        _ method: String, _ target: String, body: String? = nil, headers: [(String, String)] = [],
        timeout: Double = 30
    ) async throws -> WireResponse {
        try await app.exchange(method, target, headers: headers, body: body.map { Array($0.utf8) }, timeout: timeout)
    }

    func get(_ target: String, timeout: Double = 30) async throws -> WireResponse {
        try await send("GET", target, timeout: timeout)
    }

    func post(_ target: String, _ body: String) async throws -> WireResponse {
        try await send("POST", target, body: body)
    }

    func delete(_ target: String) async throws -> WireResponse {
        try await send("DELETE", target)
    }

    /// Creates an alert and returns its id; fails the test unless the answer is 201.
    func create(_ body: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let response = try await post("/v1/alerts", body)
        #expect(response.status == 201, "\(response.text)", sourceLocation: sourceLocation)
        return try #require(response.json["id"]?.stringValue, sourceLocation: sourceLocation)
    }

    /// Answers an alert; returns the response.
    func answer(_ id: String, _ body: String) async throws -> WireResponse {
        try await post("/v1/alerts/\(id)/response", body)
    }

    // MARK: observing

    /// Waits until the store holds `count` waiters (long-polls, blocking queries and event streams: `/metrics`
    /// `alertd_waiters`): how a test knows the requests it started wait before it acts, without sleeping.
    func waitForWaiters(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async {
        let (held, waiters) = await app.waitForWaiters(count)
        #expect(held, "the store never held \(count) waiters (it holds \(waiters))", sourceLocation: sourceLocation)
    }
}

extension WireResponse {
    /// The body parsed as JSON (`.null` when it is not JSON, which a test then notices).
    var json: JSONValue {
        (try? JSONParser.parse(body)) ?? .null
    }

    var contentType: String { headers["content-type"] ?? "" }

    var isProblem: Bool { contentType.hasPrefix("application/problem+json") }
}

extension JSONValue {
    subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    subscript(index: Int) -> JSONValue? {
        guard let items = arrayValue, items.indices.contains(index) else { return nil }
        return items[index]
    }
}

/// The seeds' login alert: a username and a secure password field.
let loginAlert = """
    {"title":"Login","message":"Enter your credentials","buttons":["Cancel","Log in"],
     "fields":[{"placeholder":"Username"},{"placeholder":"Password","secure":true,"keyboard":"asciiCapable"}]}
    """
