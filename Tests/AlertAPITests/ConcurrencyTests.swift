import AlertAPI
import Foundation
import Testing

/// Exactly one answer wins, whatever races.
@Suite("Exactly-once resolution under concurrency")
struct ConcurrencyTests {
    @Test("24 concurrent answers and a DELETE: one 200, 24 409s that all name the winner; 10 alerts")
    func exactlyOnce() async throws {
        try await LiveServer.with { server in
            for round in 0..<10 {
                let id = try await server.create(#"{"title":"race \#(round)","buttons":["Cancel","A","B"]}"#)
                let responses = try await withThrowingTaskGroup(of: WireResponse.self) { group in
                    for attempt in 0..<24 {
                        group.addTask { try await server.answer(id, #"{"buttonIndex":\#(attempt % 3)}"#) }
                        if attempt == 12 {
                            group.addTask { try await server.delete("/v1/alerts/\(id)") }
                        }
                    }
                    return try await group.reduce(into: [WireResponse]()) { $0.append($1) }
                }
                let winners = responses.filter { $0.status == 200 }
                let losers = responses.filter { $0.status == 409 }
                #expect(responses.count == 25)
                #expect(winners.count == 1, "round \(round): \(responses.map(\.status))")
                #expect(losers.count == 24, "round \(round): \(responses.map(\.status))")
                let winner = try #require(winners.first).json
                for loser in losers {
                    #expect(loser.isProblem)
                    #expect(loser.json["result"] == winner, "round \(round): \(loser.text)")
                }
                // The producer gets the same Result.
                #expect(try await server.response(id).json == winner)
            }
        }
    }

    @Test("Answers racing an expiry: at most one 200, and every 409 names the one Result", arguments: 0..<5)
    func racingExpiry(round: Int) async throws {
        try await LiveServer.with { server in
            let id = try await server.create(#"{"title":"race","buttons":["Cancel","A","B"],"timeout":0.3}"#)
            // Not ordering: aimed at the expiry, so that answers race it; any outcome below is checked.
            try await Task.sleep(for: .milliseconds(250 + 10 * round))
            let responses = try await withThrowingTaskGroup(of: WireResponse.self) { group in
                for attempt in 0..<24 {
                    group.addTask { try await server.answer(id, #"{"buttonIndex":\#(attempt % 3)}"#) }
                }
                group.addTask { try await server.delete("/v1/alerts/\(id)") }
                return try await group.reduce(into: [WireResponse]()) { $0.append($1) }
            }
            let final = try await server.response(id, wait: 60)
            #expect(final.status == 200)
            let winners = responses.filter { $0.status == 200 }
            #expect(winners.count <= 1)
            #expect(responses.allSatisfy { $0.status == 200 || $0.status == 409 }, "\(responses.map(\.status))")
            if let winner = winners.first {
                #expect(winner.json == final.json)
            } else {
                #expect(final.json["resolution"] == .string("expired"))
            }
            for loser in responses where loser.status == 409 {
                #expect(loser.json["result"] == final.json)
            }
        }
    }

    @Test("Concurrent creates are all listed, in an order consistent with their creation")
    func concurrentCreates() async throws {
        try await LiveServer.with { server in
            let ids = try await withThrowingTaskGroup(of: String.self) { group in
                for number in 0..<50 {
                    group.addTask { try await server.create(#"{"message":"\#(number)"}"#) }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            let listed = try await server.list("limit=1000")
            #expect(Set(listed.ids) == Set(ids))
            #expect(listed.ids.count == 50)
            let created = (listed["alerts"]?.arrayValue ?? []).compactMap { $0["createdAt"]?.stringValue }
            #expect(created == created.sorted(), "oldest first")
        }
    }
}
