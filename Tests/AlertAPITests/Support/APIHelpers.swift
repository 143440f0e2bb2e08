@testable import AlertAPI
import Foundation
import Testing
import JSON

// Per-endpoint helpers that keep the integration tests readable.

extension LiveServer {
    /// Creates an alert and returns the Alert JSON; fails the test unless the answer is 201.
    func createAlert(_ body: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSONValue {
        let response = try await post("/v1/alerts", body)
        try #require(response.status == 201, "\(response.text)", sourceLocation: sourceLocation)
        return response.json
    }

    /// Sends exactly `bytes` (a whole request, as it should appear on the wire).
    func raw(_ bytes: [UInt8], timeout: Double = 30) async throws -> WireResponse {
        try await RawHTTP.exchange(bytes, port: port, timeout: timeout)
    }

    /// POSTs a body given as bytes, with a correct Content-Length.
    func post(_ target: String, bytes: [UInt8], headers: [(String, String)] = []) async throws -> WireResponse {
        try await app.exchange("POST", target, headers: headers, body: bytes)
    }

    /// `GET /v1/alerts/{id}/response`, with `?wait=` when given.
    func response(_ id: String, wait: Int? = nil) async throws -> WireResponse {
        try await get("/v1/alerts/\(id)/response" + (wait.map { "?wait=\($0)" } ?? ""))
    }

    /// `GET /v1/alerts/{id}`, with `?wait=` when given.
    func alert(_ id: String, wait: Int? = nil) async throws -> WireResponse {
        try await get("/v1/alerts/\(id)" + (wait.map { "?wait=\($0)" } ?? ""))
    }

    /// `GET /v1/alerts` with the query given (without `?`); fails the test unless 200.
    func list(_ query: String = "", sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSONValue {
        let response = try await get("/v1/alerts" + (query.isEmpty ? "" : "?" + query))
        try #require(response.status == 200, "\(response.text)", sourceLocation: sourceLocation)
        return response.json
    }

    /// The ids of a list, in order.
    func listIDs(_ query: String = "", sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String] {
        try await list(query, sourceLocation: sourceLocation).ids
    }

    /// The server still serves: `/healthz` is 200 and a valid create is 201.
    func expectStillServing(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let health = try await get("/healthz")
        #expect(health.status == 200, sourceLocation: sourceLocation)
        let created = try await post("/v1/alerts", #"{"message":"still alive"}"#)
        #expect(created.status == 201, "\(created.text)", sourceLocation: sourceLocation)
    }
}

/// The Alert's members, in the order of the contract and `docs/DESIGN.md`.
let alertMembers = ["id", "title", "message", "style", "tag", "presenter", "owner", "responders", "groups", "fourEyes",
                    "quorum", "votes", "escalation", "escalated", "animated", "buttons", "fields", "state", "result", "createdAt", "expiresAt"]

extension JSONValue {
    /// The `id`s of a list body's `alerts`.
    var ids: [String] {
        (self["alerts"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
    }

    /// The keys of an object, in order.
    var keys: [String] { objectValue?.keys ?? [] }

    /// `[title: style]` pairs of an Alert's buttons, in order, checking `index` runs 0, 1, 2...
    var buttonSummary: [String] {
        (self["buttons"]?.arrayValue ?? []).enumerated().map { position, button in
            let index = button["index"]?.int64Value.map(String.init) ?? "?"
            let title = button["title"]?.stringValue ?? "?"
            let style = button["style"]?.stringValue ?? "?"
            return position == Int(index) ? "\(title):\(style)" : "\(title):\(style)@\(index)"
        }
    }
}

/// Checks that `response` is an `application/problem+json` problem with `status`, the
/// RFC 9457 members, and (when given) an `errors` item naming `pointer` or `parameter`.
/// - Returns: the problem body.
@discardableResult
func expectProblem(
    _ response: WireResponse, _ status: Int, pointer: String? = nil, parameter: String? = nil, type: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) -> JSONValue {
    let problem = response.json
    #expect(response.status == status, "\(response.text)", sourceLocation: sourceLocation)
    #expect(response.isProblem, "Content-Type is '\(response.contentType)'", sourceLocation: sourceLocation)
    #expect(problem["type"]?.stringValue?.isEmpty == false, "\(response.text)", sourceLocation: sourceLocation)
    #expect(problem["title"]?.stringValue?.isEmpty == false, "\(response.text)", sourceLocation: sourceLocation)
    #expect(problem["status"]?.int64Value == Int64(status), "\(response.text)", sourceLocation: sourceLocation)
    #expect(problem["detail"]?.stringValue?.isEmpty == false, "\(response.text)", sourceLocation: sourceLocation)
    if let type {
        #expect(problem["type"]?.stringValue == type, "\(response.text)", sourceLocation: sourceLocation)
    }
    let errors = problem["errors"]?.arrayValue ?? []
    if let pointer {
        #expect(errors.contains { $0["pointer"]?.stringValue == pointer },
                "no error at \(pointer): \(response.text)", sourceLocation: sourceLocation)
    }
    if let parameter {
        #expect(errors.first?["parameter"]?.stringValue == parameter,
                "errors[0] does not name \(parameter): \(response.text)", sourceLocation: sourceLocation)
    }
    return problem
}

/// The detail of the `errors` item at `pointer`, or "".
func errorDetail(_ problem: JSONValue, at pointer: String) -> String {
    (problem["errors"]?.arrayValue ?? []).first { $0["pointer"]?.stringValue == pointer }?["detail"]?.stringValue ?? ""
}

/// Whether `text` is an RFC 3339 date-time that parses.
func isRFC3339(_ text: String?) -> Bool {
    guard let text else { return false }
    let shape = #/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/#
    return text.wholeMatch(of: shape) != nil && RFC3339.parse(text) != nil
}

/// A JSON string literal for `text`.
func jsonString(_ text: String) -> String {
    var writer = JSONWriter()
    writer.write(text)
    return String(decoding: writer.bytes, as: UTF8.self)
}

/// Elapsed time on a monotonic clock.
struct Stopwatch {
    private let start = ContinuousClock.now
    var elapsed: Duration { ContinuousClock.now - start }
    var seconds: Double { elapsed.seconds }
}

extension Duration {
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
