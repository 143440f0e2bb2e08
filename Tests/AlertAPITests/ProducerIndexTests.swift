@testable import AlertAPI
import Foundation
import HTTPTestSupport
import Locking
import Testing

/// What a producer learns of the change index: only the indexes of its own alerts' events, so it cannot watch
/// other producers' activity through `index`, `X-Alertd-Index` or a blocking query.
@Suite("Access control: a producer's index")
struct ProducerIndexTests {
    typealias Tokens = AccessControlTests

    static func withTokens(_ configure: @escaping (inout AlertdConfiguration) -> Void = { _ in },
                           _ body: (LiveServer) async throws -> Void) async throws {
        try await LiveServer.with(transport: .inProcess, {
            $0.tokens = try! AccessTokens(parsing: Tokens.tokens, source: "test")
            configure(&$0)
        }, body)
    }

    /// The list's `index` as `token`'s holder sees it, checked against `X-Alertd-Index`.
    static func index(_ server: LiveServer, as token: String, _ query: String = "",
                      sourceLocation: SourceLocation = #_sourceLocation) async throws -> Int64? {
        let response = try await server.send("GET", "/v1/alerts" + query, as: token)
        #expect(response.status == 200, "\(response.text)", sourceLocation: sourceLocation)
        let index = response.json["index"]?.int64Value
        #expect(response.headers["x-alertd-index"] == index.map(String.init), sourceLocation: sourceLocation)
        return index
    }

    @Test("a producer's index is its own newest event's and does not move with other producers' changes")
    func ownIndex() async throws {
        try await Self.withTokens { server in
            #expect(try await Self.index(server, as: Tokens.ci) == 0)
            _ = try await server.create(#"{"message":"mine"}"#, as: Tokens.ci)            // event 1
            for _ in 0..<3 { _ = try await server.create(#"{"message":"theirs"}"#, as: Tokens.other) }  // 2...4
            #expect(try await Self.index(server, as: Tokens.ci) == 1)
            #expect(try await Self.index(server, as: Tokens.other) == 4)
            #expect(try await Self.index(server, as: Tokens.alice) == 4, "a responder sees every change")
            #expect(try await Self.index(server, as: Tokens.root, "?state=all") == 4)

            let theirs = try await server.create(#"{"message":"theirs"}"#, as: Tokens.other)  // 5
            #expect(try await server.send("DELETE", "/v1/alerts/\(theirs)", as: Tokens.other).status == 200)  // 6
            #expect(try await Self.index(server, as: Tokens.ci) == 1)

            // The event long-poll's resume cursor does not show them either.
            let events = try await server.send("GET", "/v1/events?since=1&wait=0", as: Tokens.ci)
            #expect(events.status == 200)
            #expect(events.json.arrayValue?.isEmpty == true)
            #expect(events.headers["x-alertd-index"] == "1", "\(events.headers)")
            let now = try await server.send("GET", "/v1/events?wait=0", as: Tokens.ci)
            #expect(now.headers["x-alertd-index"] == "1")
            let all = try await server.send("GET", "/v1/events?since=1&wait=0", as: Tokens.alice)
            #expect(all.headers["x-alertd-index"] == "6")
        }
    }

    @Test("a producer's blocking query sleeps through other producers' changes and wakes for its own")
    func blockingQuery() async throws {
        try await Self.withTokens { server in
            _ = try await server.create(#"{"message":"mine"}"#, as: Tokens.ci)  // event 1
            let index = try #require(try await Self.index(server, as: Tokens.ci))
            // Another producer's change while ci waits: ci's query runs to its deadline and shows nothing new.
            let watch = Stopwatch()
            let over = Lock(false)
            let quiet = Task {
                defer { over.withLock { $0 = true } }
                return try await server.send("GET", "/v1/alerts?index=\(index)&wait=2", as: Tokens.ci)
            }
            // Until it waits; or, when a loaded machine ran this test late, until its 2 s are over already (the
            // create below then comes after it, and the checks hold all the same).
            let store = server.app.store
            _ = await TestTime.until { await store.statistics.waiters == 1 || over.withLock { $0 } }
            _ = try await server.create(#"{"message":"theirs"}"#, as: Tokens.other)  // event 2
            let slept = try await quiet.value
            #expect(watch.seconds >= 1.9, "woken by another producer's change after \(watch.seconds) s")
            #expect(slept.json["index"]?.int64Value == index)
            #expect(slept.json.ids.count == 1)

            // Its own change wakes it.
            let wait = 30
            let again = Stopwatch()
            async let woken = server.send("GET", "/v1/alerts?index=\(index)&wait=\(wait)", as: Tokens.ci)
            await server.waitForWaiters(1)
            _ = try await server.create(#"{"message":"theirs again"}"#, as: Tokens.other)  // event 3
            let second = try await server.create(#"{"message":"mine too"}"#, as: Tokens.ci)  // event 4
            let answer = try await woken
            #expect(answer.json.ids.last == second)
            #expect(answer.json["index"]?.int64Value == 4)
            #expect(again.seconds < TestTime.sooner(than: Double(wait)), "woken by its own change, not at the end")
        }
    }

    @Test("a producer's cursor stays good while other producers' events fill the history; past its own it is 410")
    func cursorAndHistory() async throws {
        try await Self.withTokens({ $0.store.eventHistory = 4 }) { server in
            let mine = try await server.create(#"{"message":"mine"}"#, as: Tokens.ci)  // event 1
            for _ in 0..<10 { _ = try await server.create(#"{"message":"theirs"}"#, as: Tokens.other) }  // 2...11
            let index = try #require(try await Self.index(server, as: Tokens.ci))
            #expect(index == 1)
            let resumed = try await server.send("GET", "/v1/events?since=\(index)&wait=0", as: Tokens.ci)
            #expect(resumed.status == 200, "the list's index is a cursor the producer can follow: \(resumed.text)")
            #expect(resumed.headers["x-alertd-index"] == "1")
            let ahead = try await server.send("GET", "/v1/events?since=5&wait=0", as: Tokens.ci)
            let problem = expectProblem(ahead, 410, type: "urn:alertd:problem:history-gone")
            #expect(problem["detail"]?.stringValue?.contains("11") == false, "names no index but its own")
            // Its own event pushed out of the history: its old cursor is gone, and the list gives a new one.
            #expect(try await server.send("DELETE", "/v1/alerts/\(mine)", as: Tokens.ci).status == 200)  // 12
            for _ in 0..<4 { _ = try await server.create(#"{"message":"theirs"}"#, as: Tokens.other) }  // 13...16
            _ = expectProblem(try await server.send("GET", "/v1/events?since=0&wait=0", as: Tokens.ci), 410)
            let relisted = try #require(try await Self.index(server, as: Tokens.ci, "?state=all"))
            #expect(relisted == 12)
            #expect(try await server.send("GET", "/v1/events?since=\(relisted)&wait=0", as: Tokens.ci).status == 200)
        }
    }
}
