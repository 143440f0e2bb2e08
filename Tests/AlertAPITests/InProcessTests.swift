import Foundation
import Testing

/// `AlertdApp` without a server (`.inProcess`): the routes answer as they do over HTTP, with no port.
@Suite("Routes in process")
struct InProcessTests {
    /// Requests whose answers do not depend on the alert they create: a create, a list, problems, the health.
    static let requests: [(method: String, target: String, body: String?)] = [
        ("POST", "/v1/alerts", #"{"title":"same","buttons":["No","Yes"]}"#),
        ("POST", "/v1/alerts", #"{"title":"","buttons":[1]}"#),
        ("GET", "/v1/alerts?state=pending&presenter=a%20b", nil),
        ("GET", "/v1/alerts?limit=abc", nil),
        ("DELETE", "/v1/alerts", nil),
        ("GET", "/nowhere", nil),
        ("GET", "/healthz", nil),
    ]

    @Test("A route answers in process as over HTTP: the same status, content type, JSON members and tags")
    func sameAnswers() async throws {
        try await LiveServer.with { live in
            try await LiveServer.with(transport: .inProcess) { local in
                #expect(local.port == 0, "in process, nothing listens")
                for request in Self.requests {
                    let overHTTP = try await live.send(request.method, request.target, body: request.body)
                    let inProcess = try await local.send(request.method, request.target, body: request.body)
                    let what = "\(request.method) \(request.target)"
                    #expect(inProcess.status == overHTTP.status, "\(what): \(inProcess.text)")
                    #expect(inProcess.contentType == overHTTP.contentType, "\(what)")
                    #expect(inProcess.headers["allow"] == overHTTP.headers["allow"], "\(what)")
                    #expect(inProcess.json.objectValue?.keys.sorted() == overHTTP.json.objectValue?.keys.sorted(),
                            "\(what): \(inProcess.text) vs \(overHTTP.text)")
                    #expect(inProcess.json["type"] == overHTTP.json["type"], "\(what)")
                    #expect(inProcess.headers["x-request-id"] != nil, "\(what): tagged as over HTTP")
                    #expect(inProcess.headers["x-alertd-instance"] == local.app.store.epoch, "\(what)")
                }
            }
        }
    }

    @Test("A long-poll in process waits for the answer, then gets the result, as over HTTP")
    func longPollInProcess() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(#"{"title":"wait","buttons":["No","Yes"]}"#)
            async let waited = server.get("/v1/alerts/\(id)/response?wait=30")
            await server.waitForWaiters(1)
            let answer = try await server.answer(id, #"{"buttonIndex":1}"#)
            #expect(answer.status == 200, "\(answer.text)")
            let result = try await waited
            #expect(result.status == 200, "\(result.text)")
            #expect(result.json["buttonIndex"] == .integer(1), "\(result.text)")
        }
    }
}
