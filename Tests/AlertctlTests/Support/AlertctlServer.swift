import AlertServer
import AlertdTestSupport
import Foundation
import HTTPTestSupport
import Testing

/// A real alertd in this process on an ephemeral port; tests drive `alertctl --url` against it and answer over HTTP.
struct AlertctlServer {
    let app: AlertdApp

    var port: Int { app.port }
    var url: String { app.url }

    /// Starts a server on `port` (0: any free port); the caller shuts it down (`app.shutdown()`).
    static func start(port: Int = 0) throws -> AlertctlServer {
        AlertctlServer(app: try TestAlertd.start(port: port))
    }

    /// Starts a server, runs `body`, shuts it down.
    static func with(_ body: (AlertctlServer) async throws -> Void) async throws {
        try await TestAlertd.with { app in try await body(AlertctlServer(app: app)) }
    }

    /// Runs `alertctl --url URL arguments...`.
    func alertctl(_ arguments: String...) async throws -> AlertctlOutput {
        try await AlertctlProcess.run(["--url", url] + arguments)
    }

    /// Starts `alertctl --url URL arguments...` without waiting for it.
    func start(_ arguments: String...) throws -> AlertctlProcess {
        try AlertctlProcess(["--url", url] + arguments)
    }

    /// Waits until the store holds `count` waiters (`AlertdApp.waitForWaiters`); fails the test when it never does.
    func waitForWaiters(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async {
        let (held, waiters) = await app.waitForWaiters(count)
        #expect(held, "the store never held \(count) waiters (it holds \(waiters))", sourceLocation: sourceLocation)
    }

    // MARK: HTTP, bypassing alertctl

    /// Sends a request; returns the status and the body parsed as a JSON object (empty when it is not one).
    func request(_ method: String, _ target: String, body: String? = nil) async throws -> (Int, [String: Any]) {
        let response = try await RawHTTP.exchange(
            RawHTTP.request(method, target, body: body.map { Array($0.utf8) }), port: port)
        let json = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        return (response.status, json ?? [:])
    }

    /// Creates an alert from a JSON body; returns its id.
    func create(_ body: String) async throws -> String {
        let (status, json) = try await request("POST", "/v1/alerts", body: body)
        #expect(status == 201)
        return try #require(json["id"] as? String)
    }

    /// Waits until one alert is pending and returns its id (`process` posted it; if it exits first, its output is
    /// the error).
    func pendingID(of process: AlertctlProcess? = nil, timeout: Duration = .seconds(30)) async throws -> String {
        let deadline = ContinuousClock.now + TestTime.bound(timeout)
        while ContinuousClock.now < deadline {
            if let process, !process.isRunning {
                throw AlertctlTestError("alertctl ended before posting: \(try await process.finish())")
            }
            let (_, json) = try await request("GET", "/v1/alerts")
            if let alerts = json["alerts"] as? [[String: Any]], let id = alerts.first?["id"] as? String {
                return id
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw AlertctlTestError("no pending alert within \(timeout)")
    }

    /// The pending alert as JSON (for checking what alertctl posted).
    func alert(_ id: String) async throws -> [String: Any] {
        try await request("GET", "/v1/alerts/\(id)").1
    }

    /// Answers `id` with a body such as `{"button":"Deploy"}`; returns the status.
    @discardableResult
    func answer(_ id: String, _ body: String) async throws -> Int {
        try await request("POST", "/v1/alerts/\(id)/response", body: body).0
    }

    /// Dismisses `id`; returns the status.
    @discardableResult
    func dismiss(_ id: String) async throws -> Int {
        try await request("DELETE", "/v1/alerts/\(id)").0
    }
}
