import AlertAPI
import Foundation
import Testing

/// The configurable limits of `docs/DESIGN.md` as clients see them: 429 when too many are
/// pending, and 404 for resolved alerts dropped by retention.
@Suite("Pending cap and retention")
struct StoreLimitTests {
    @Test("Past --max-pending a create is 429 with Retry-After; resolving one makes room")
    func tooManyPending() async throws {
        try await LiveServer.with(transport: .inProcess) { $0.store.maxPending = 2 } _: { server in
            let first = try await server.create(#"{"message":"1"}"#)
            _ = try await server.create(#"{"message":"2"}"#)
            let refused = try await server.post("/v1/alerts", #"{"message":"3"}"#)
            expectProblem(refused, 429, type: "urn:alertd:problem:too-many-pending")
            #expect(refused.headers["retry-after"] != nil)
            #expect(try await server.listIDs().count == 2)
            _ = try await server.answer(first, #"{"buttonIndex":0}"#)
            #expect(try await server.post("/v1/alerts", #"{"message":"3"}"#).status == 201)
        }
    }

    @Test("Past --max-resolved the oldest resolution is dropped: 404 afterwards, index unchanged")
    func maxResolved() async throws {
        try await LiveServer.with(transport: .inProcess) { $0.store.maxResolved = 2 } _: { server in
            var ids: [String] = []
            for number in 0..<3 {
                let id = try await server.create(#"{"message":"\#(number)"}"#)
                ids.append(id)
            }
            for id in ids { _ = try await server.delete("/v1/alerts/\(id)") }
            expectProblem(try await server.response(ids[0]), 404, type: "urn:alertd:problem:not-found")
            expectProblem(try await server.alert(ids[0]), 404)
            expectProblem(try await server.answer(ids[0], #"{"buttonIndex":0}"#), 404)
            #expect(try await server.response(ids[1]).status == 200)
            #expect(try await server.listIDs("state=resolved") == [ids[1], ids[2]])
        }
    }

    @Test("After --retention a resolved alert answers 404, and dropping it does not bump the index")
    func retention() async throws {
        try await LiveServer.with(transport: .inProcess) { $0.store.retention = .milliseconds(500) } _: { server in
            let id = try await server.create(#"{"message":"short-lived"}"#)
            let result = try await server.answer(id, #"{"buttonIndex":0}"#)
            #expect(try await server.response(id).json == result.json)
            let index = try await server.list()["index"]?.int64Value
            var gone: WireResponse?
            _ = try await TestTime.until(every: .milliseconds(50)) {
                gone = try await server.response(id)
                return gone?.status == 404
            }
            expectProblem(try #require(gone), 404, type: "urn:alertd:problem:not-found")
            #expect(try await server.listIDs("state=all") == [])
            #expect(try await server.list()["index"]?.int64Value == index)
        }
    }

    @Test("Pending alerts are never dropped by retention")
    func pendingKept() async throws {
        try await LiveServer.with(transport: .inProcess) { $0.store.retention = .milliseconds(200); $0.store.maxResolved = 0 } _: { server in
            let id = try await server.create(#"{"message":"waiting"}"#)
            let other = try await server.create(#"{"message":"answered"}"#)
            _ = try await server.answer(other, #"{"buttonIndex":0}"#)
            // Retention has run once the answered alert is gone.
            #expect(try await TestTime.until(every: .milliseconds(50)) {
                try await server.response(other).status == 404
            })
            #expect(try await server.response(id).status == 204)
            #expect(try await server.listIDs() == [id])
        }
    }
}
