@testable import AlertAPI
import Foundation
import Testing

extension WireResponse {
    /// The `X-Alertd-Index` header as a number.
    var alertdIndex: UInt64? { headers["x-alertd-index"].flatMap { UInt64($0) } }
}

/// `GET /v1/events?wait=S`: the events after a cursor as a JSON array, for clients without SSE.
@Suite("Event long-poll (?wait=)")
struct EventLongPollTests {
    @Test("Events after the cursor at once, as [{id, type, alert}], with X-Alertd-Index")
    func immediate() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let first = try await server.create(#"{"title":"one","buttons":["No","Yes"]}"#)
            let answer = try await server.answer(first, #"{"buttonIndex":1}"#)
            let second = try await server.create(#"{"title":"two"}"#)
            let watch = Stopwatch()
            let response = try await server.get("/v1/events?since=0&wait=30")
            #expect(watch.seconds < TestTime.sooner(than: 30))
            #expect(response.status == 200)
            #expect(response.contentType.hasPrefix("application/json"))
            #expect(response.alertdIndex == 3)
            let events = try #require(response.json.arrayValue)
            #expect(events.count == 3)
            #expect(events.map(\.keys) == Array(repeating: ["id", "type", "alert"], count: 3))
            #expect(events.map { $0["id"]?.int64Value ?? 0 } == [1, 2, 3])
            #expect(events.map { $0["type"]?.stringValue ?? "" } == ["created", "answered", "created"])
            #expect(events.map { $0["alert"]?["id"]?.stringValue ?? "" } == [first, first, second])
            #expect(events[1]["alert"]?["result"] == answer.json)

            let later = try await server.get("/v1/events?since=2&wait=0")
            #expect(later.json.arrayValue?.map { $0["id"]?.int64Value ?? 0 } == [3])
            let header = try await server.send("GET", "/v1/events?wait=0", headers: [("Last-Event-ID", "1")])
            #expect(header.json.arrayValue?.map { $0["id"]?.int64Value ?? 0 } == [2, 3])
        }
    }

    @Test("Nothing new: [] after about S seconds (no cursor means from now)")
    func timesOutEmpty() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            _ = try await server.create(#"{"title":"old news"}"#)
            let watch = Stopwatch()
            let response = try await server.get("/v1/events?wait=1")
            #expect(response.status == 200)
            #expect(response.json == .array([]))
            #expect(response.alertdIndex == 1)
            #expect(watch.seconds >= 0.9 && watch.seconds < 1 + TestTime.bound(10), "\(watch.seconds) s")
            let zero = try await server.get("/v1/events?since=1&wait=0")
            #expect(zero.json == .array([]))
        }
    }

    @Test("A waiting request is answered as soon as the next event happens")
    func wokenByEvent() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            _ = try await server.create(#"{"title":"before"}"#)
            let poll = Task { try await server.get("/v1/events?since=1&wait=60") }
            await server.waitForWaiters(1)
            let watch = Stopwatch()
            let id = try await server.create(#"{"title":"wake up"}"#)
            let response = try await poll.value
            #expect(watch.seconds < TestTime.sooner(than: 60))
            let events = try #require(response.json.arrayValue)
            #expect(events.map { $0["alert"]?["id"]?.stringValue ?? "" } == [id])
            #expect(response.alertdIndex == 2)
        }
    }

    @Test("Filters: changes that do not match keep the request waiting")
    func filteredWait() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(#"{"title":"x","presenter":"ops"}"#)
            let poll = Task { try await server.get("/v1/events?since=1&wait=60&type=answered&presenter=ops") }
            await server.waitForWaiters(1)
            _ = try await server.create(#"{"title":"not answered","presenter":"ops"}"#)
            let other = try await server.create(#"{"title":"elsewhere","presenter":"dev"}"#)
            _ = try await server.answer(other, #"{"buttonIndex":0}"#)
            // Not ordering, a window: a poll that wrongly answered these changes does so within it, and then lacks
            // the answer below. A correct server passes however long the window really lasts.
            try await Task.sleep(for: .milliseconds(300))
            _ = try await server.answer(id, #"{"buttonIndex":0}"#)
            let response = try await poll.value
            let events = try #require(response.json.arrayValue)
            #expect(events.map { $0["type"]?.stringValue ?? "" } == ["answered"])
            #expect(events.first?["id"]?.int64Value == 5)
            #expect(events.first?["alert"]?["id"]?.stringValue == id)
            #expect(response.alertdIndex == 5)
        }
    }

    @Test("Secure values are null in long-poll events")
    func secureValues() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(loginAlert)
            _ = try await server.answer(id, #"{"buttonIndex":1,"values":["alice","s3cret-poll"]}"#)
            let response = try await server.get("/v1/events?since=0&wait=0")
            #expect(!response.text.contains("s3cret-poll"))
            let answered = try #require(response.json[1])
            #expect(answered["alert"]?["result"]?["values"] == .array([.string("alice"), .null]))
        }
    }

    @Test("410 for a stale or future cursor, as for the stream")
    func goneCursor() async throws {
        try await LiveServer.with(transport: .inProcess, { $0.store.eventHistory = 5 }) { server in
            _ = try await server.createMany(10) { #"{"title":"a\#($0)"}"# }
            expectProblem(try await server.get("/v1/events?since=3&wait=5"), 410, type: "urn:alertd:problem:history-gone")
            expectProblem(try await server.get("/v1/events?since=11&wait=5"), 410, type: "urn:alertd:problem:history-gone")
            let kept = try await server.get("/v1/events?since=5&wait=5")
            #expect(kept.json.arrayValue?.map { $0["id"]?.int64Value ?? 0 } == [6, 7, 8, 9, 10])
        }
    }

    @Test("A batch holds at most 1,000 events, and resuming from its X-Alertd-Index misses none")
    func fullBatchResume() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let total = 1005
            _ = try await server.createMany(total, parallel: 16) { #"{"title":"n\#($0)"}"# }
            let first = try await server.get("/v1/events?since=0&wait=1")
            let firstIDs = (first.json.arrayValue ?? []).compactMap { $0["id"]?.int64Value }
            #expect(firstIDs == Array(1...1000))
            // A client resumes from the index the server gave it (or from the last id: the same must hold).
            let cursor = try #require(first.alertdIndex)
            #expect(cursor == 1000, "X-Alertd-Index is \(cursor) after a batch that ended at event 1000")
            let second = try await server.get("/v1/events?since=\(cursor)&wait=1")
            let secondIDs = (second.json.arrayValue ?? []).compactMap { $0["id"]?.int64Value }
            #expect(firstIDs + secondIDs == Array(1...Int64(total)),
                    "resuming from X-Alertd-Index \(cursor) lost \(total - firstIDs.count - secondIDs.count) events")
        }
    }
}
