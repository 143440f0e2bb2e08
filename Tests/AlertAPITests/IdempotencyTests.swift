@testable import AlertAPI
import Foundation
import Testing

extension LiveServer {
    /// `POST /v1/alerts` with an `Idempotency-Key`.
    func create(_ body: String, key: String) async throws -> WireResponse {
        try await send("POST", "/v1/alerts", body: body, headers: [("Idempotency-Key", key)])
    }
}

/// `Idempotency-Key` on `POST /v1/alerts`: a retry returns the same alert, never a second one.
@Suite("Idempotent create")
struct IdempotencyTests {
    let body = #"{"title":"Deploy?","buttons":["No","Yes"],"tag":7}"#

    @Test("A retry with the same key and body: 200, Idempotent-Replayed, the same alert and Location")
    func replay() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let first = try await server.create(body, key: "deploy-42")
            #expect(first.status == 201)
            #expect(first.headers["idempotent-replayed"] == nil)
            let id = try #require(first.json["id"]?.stringValue)
            let again = try await server.create(body, key: "deploy-42")
            #expect(again.status == 200)
            #expect(again.headers["idempotent-replayed"] == "true")
            #expect(again.headers["location"] == "/v1/alerts/\(id)")
            #expect(again.contentType.hasPrefix("application/json"))
            #expect(again.json == first.json)
            // Key order and whitespace in the body do not matter, only its meaning.
            let reordered = try await server.create(#"{ "tag": 7, "buttons": ["No", "Yes"], "title": "Deploy?" }"#,
                                                    key: "deploy-42")
            #expect(reordered.status == 200)
            #expect(reordered.json["id"] == .string(id))
            #expect(try await server.listIDs() == [id])
        }
    }

    @Test("A replay after the alert resolved returns it as it is now")
    func replayAfterAnswer() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try #require(try await server.create(body, key: "k1").json["id"]?.stringValue)
            let answer = try await server.answer(id, #"{"buttonIndex":1}"#)
            let again = try await server.create(body, key: "k1")
            #expect(again.status == 200)
            #expect(again.json["id"] == .string(id))
            #expect(again.json["state"] == .string("resolved"))
            #expect(again.json["result"] == answer.json)
        }
    }

    @Test("20 concurrent POSTs with one key and body: one 201, nineteen 200 with the same id, one alert")
    func racingRetries() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            for round in 0..<3 {
                let key = "race-\(round)"
                let responses = try await withThrowingTaskGroup(of: WireResponse.self) { group in
                    for _ in 0..<20 { group.addTask { try await server.create(body, key: key) } }
                    return try await group.reduce(into: [WireResponse]()) { $0.append($1) }
                }
                let statuses = responses.map(\.status)
                #expect(statuses.filter { $0 == 201 }.count == 1, "round \(round): \(statuses)")
                #expect(statuses.filter { $0 == 200 }.count == 19, "round \(round): \(statuses)")
                let ids = Set(responses.compactMap { $0.json["id"]?.stringValue })
                #expect(ids.count == 1, "round \(round): \(ids)")
                #expect(responses.filter { $0.status == 200 }.allSatisfy { $0.headers["idempotent-replayed"] == "true" })
            }
            let list = try await server.list("state=all")
            #expect(list.ids.count == 3)
            #expect(list["index"]?.int64Value == 3)
            #expect(try await server.metrics()["alertd_alerts_created_total"] == 3)
        }
    }

    @Test("The same key with a different body: 422 idempotency-key-reused naming the header; nothing created")
    func keyReused() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let first = try await server.create(body, key: "reuse-me")
            #expect(first.status == 201)
            for other in [#"{"title":"Deploy?","buttons":["No","Yes"],"tag":8}"#, #"{"title":"Something else"}"#,
                          #"{"title":"Deploy?","buttons":["No","Yes"],"tag":7,"presenter":"ops"}"#] {
                let response = try await server.create(other, key: "reuse-me")
                let problem = expectProblem(response, 422, type: "urn:alertd:problem:idempotency-key-reused")
                #expect(problem["errors"]?[0]?["header"] == .string("Idempotency-Key"), "\(response.text)")
                #expect(problem["errors"]?[0]?["detail"]?.stringValue?.isEmpty == false)
            }
            #expect(try await server.listIDs() == [first.json["id"]?.stringValue ?? ""])
        }
    }

    @Test("Different keys create different alerts; no key always creates")
    func differentKeys() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let a = try await server.create(body, key: "a")
            let b = try await server.create(body, key: "b")
            #expect(a.status == 201 && b.status == 201)
            #expect(a.json["id"] != b.json["id"])
            #expect(try await server.post("/v1/alerts", body).status == 201)
            #expect(try await server.post("/v1/alerts", body).status == 201)
            #expect(try await server.listIDs().count == 4)
        }
    }

    @Test("Keys are exact: case and length matter")
    func keysAreExact() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let lower = try await server.create(body, key: "key")
            let upper = try await server.create(body, key: "KEY")
            let longer = try await server.create(body, key: "key2")
            #expect([lower.status, upper.status, longer.status] == [Int](repeating: 201, count: 3))
            let longest = String(repeating: "k", count: 255)
            #expect(try await server.create(body, key: longest).status == 201)
            #expect(try await server.create(body, key: longest).status == 200)
        }
    }

    @Test("Invalid keys are 400 invalid-header naming Idempotency-Key",
          arguments: ["", String(repeating: "x", count: 256), "two words", "ключ", "tab\there"])
    func invalidKey(key: String) async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let response = try await server.create(body, key: key)
            let problem = expectProblem(response, 400, type: "urn:alertd:problem:invalid-header")
            #expect(problem["errors"]?[0]?["header"] == .string("Idempotency-Key"), "\(response.text)")
            #expect(try await server.listIDs().isEmpty)
        }
    }

    @Test("A create refused by the rules does not use up its key")
    func refusedCreateKeepsKeyFree() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let broken = #"{"title":"x","buttons":[{"title":"A","style":"cancel"},{"title":"B","style":"cancel"}]}"#
            expectProblem(try await server.create(broken, key: "fix-and-retry"), 422,
                          type: "urn:alertd:problem:validation-failed")
            #expect(try await server.create(body, key: "fix-and-retry").status == 201)
        }
    }

    @Test("A key expires with its alert's retention: afterwards the key creates a new alert")
    func keyExpiresWithAlert() async throws {
        try await LiveServer.with(transport: .inProcess, { $0.store.maxResolved = 0 }) { server in
            let first = try await server.create(body, key: "short-lived")
            let id = try #require(first.json["id"]?.stringValue)
            #expect(try await server.create(body, key: "short-lived").status == 200, "kept while pending")
            _ = try await server.answer(id, #"{"buttonIndex":0}"#)
            #expect(try await server.alert(id).status == 404, "dropped by retention")
            let again = try await server.create(body, key: "short-lived")
            #expect(again.status == 201)
            #expect(again.json["id"] != .string(id))
            // And with another body too: the old one is forgotten.
            _ = try await server.answer(try #require(again.json["id"]?.stringValue), #"{"buttonIndex":0}"#)
            #expect(try await server.create(#"{"title":"new body"}"#, key: "short-lived").status == 201)
        }
    }
}
