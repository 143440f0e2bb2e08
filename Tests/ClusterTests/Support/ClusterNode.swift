import Foundation
import HTTPTestSupport
import JSON
import Testing

/// One real `alertd --database URL` (an `AlertdProcess`) on an ephemeral port, with what the cluster tests ask of it.
final class ClusterNode: Sendable {
    let process: AlertdProcess
    /// The bearer token every request carries unless it names its own `Authorization`, or nil.
    let token: String?

    /// Its port.
    var port: Int { process.port }

    /// What it wrote on standard error so far.
    var standardError: String { process.standardError }

    /// Starts `alertd --database url` and waits until it serves; its requests carry `token` (when alertd runs with
    /// tokens).
    init(database url: String, arguments: [String] = [], token: String? = nil) async throws {
        process = try await AlertdProcess.start(arguments: ["--database", url, "--access-log", "off"] + arguments)
        self.token = token
    }

    /// The `Authorization` header of `token`, or none.
    var authorization: [(String, String)] {
        token.map { [("Authorization", "Bearer \($0)")] } ?? []
    }

    /// Sends a request and reads the whole response.
    func request(
        _ method: String, _ target: String, json body: String? = nil, headers: [(String, String)] = [],
        timeout: Double = 30
    ) async throws -> WireResponse {
        var all = headers
        if !headers.contains(where: { $0.0 == "Authorization" }) { all += authorization }
        if body != nil { all.append(("Content-Type", "application/json")) }
        return try await RawHTTP.exchange(RawHTTP.request(method, target, headers: all, body: body.map { Array($0.utf8) }),
                                          port: port, timeout: TestTime.bound(timeout))
    }

    /// Creates an alert with two buttons; returns its id.
    func create(_ title: String, key: String? = nil) async throws -> String {
        let response = try await request("POST", "/v1/alerts", json: Self.draft(title),
                                         headers: key.map { [("Idempotency-Key", $0)] } ?? [])
        try #require(response.status == 201, "create: \(response)")
        return try response.json().string("id")
    }

    static func draft(_ title: String) -> String {
        #"{"title":"\#(title)","buttons":[{"title":"No"},{"title":"Yes"}],"timeout":600}"#
    }

    /// The `alertd_waiters` gauge of `/metrics`.
    func waiters() async throws -> Int {
        Int(try await metric("alertd_waiters") ?? -1)
    }

    /// The value of one sample of `/metrics` (`name` with its labels, as the line starts), or nil when it is absent.
    func metric(_ name: String) async throws -> Double? {
        try await process.metric(name)
    }

    /// The change index this instance has applied (`X-Alertd-Index` of a list).
    func index() async throws -> UInt64 {
        UInt64(try await request("GET", "/v1/alerts?limit=1").headers["x-alertd-index"] ?? "") ?? 0
    }

    /// Sends `signal` (SIGSTOP, SIGCONT).
    func send(_ signal: Int32) {
        process.send(signal)
    }

    func stop() async {
        await process.stop()
    }

    func kill() async {
        try? await process.kill()
    }
}

extension WireResponse {
    func json() throws -> JSONObject {
        guard let object = try JSONParser.parse(body).objectValue else {
            throw RawHTTPError(description: "not a JSON object: \(text)")
        }
        return object
    }

    func jsonArray() throws -> [JSONValue] {
        guard let array = try JSONParser.parse(body).arrayValue else {
            throw RawHTTPError(description: "not a JSON array: \(text)")
        }
        return array
    }
}

extension JSONObject {
    func string(_ key: String) throws -> String {
        guard let value = self[key]?.stringValue else { throw RawHTTPError(description: "no string '\(key)'") }
        return value
    }
}

/// Waits until `condition` holds, polling, or fails after `seconds`.
func eventually(
    _ what: String, within seconds: Double = 10, _ condition: () async throws -> Bool
) async throws {
    let deadline = Date().addingTimeInterval(TestTime.bound(seconds))
    while Date() < deadline {
        if (try? await condition()) == true { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("not within \(seconds) s: \(what)")
    throw RawHTTPError(description: "timed out: \(what)")
}

/// PostgreSQL (with `options` added to its settings) and `count` alertd instances on it (each given `arguments`, its
/// requests carrying `token`), stopped and removed after `body`, also when it fails.
func withCluster(
    instances count: Int = 3, arguments: [String] = [], postgres options: String = "", token: String? = nil,
    _ body: (ScratchPostgres, [ClusterNode]) async throws -> Void
) async throws {
    let postgres = try await ScratchPostgres.start(options: options)
    var nodes: [ClusterNode] = []
    do {
        for _ in 0..<count { nodes.append(try await ClusterNode(database: postgres.url, arguments: arguments, token: token)) }
        try await body(postgres, nodes)
    } catch {
        for node in nodes { await node.kill() }
        await postgres.remove()
        throw error
    }
    for node in nodes { await node.stop() }
    await postgres.remove()
}
