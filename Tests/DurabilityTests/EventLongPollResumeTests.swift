import Foundation
import HTTPTestSupport
import JSON
import Testing

/// A long-poll follower of `/v1/events` that resumes from each answer's `X-Alertd-Index`, as the README says, gets
/// every event while commits land at the same time.
@Suite("Resuming event long-polls under group commit", .spawnsProcesses)
struct EventLongPollResumeTests {
    /// Long-polls answered while the writers run; enough that the commit race it guards against shows.
    static let polls = 1500

    @Test("with a data dir, X-Alertd-Index is never past the events its answer holds, so resuming misses none")
    func resumeMissesNothing() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let server = AlertdProcess(dataDirectory: scratch.appending("data"), arguments: ["--access-log", "off"])
        try await server.start()
        let writers = (0..<4).map { _ in
            Task {
                while !Task.isCancelled {
                    _ = try? await server.send("POST", "/v1/alerts", body: #"{"title":"load"}"#)
                }
            }
        }
        defer { for writer in writers { writer.cancel() } }

        var cursor: UInt64 = 0
        var last: UInt64 = 0
        var answered = 0
        var missed: [String] = []
        let deadline = ContinuousClock.now + .seconds(TestTime.bound(60))
        while answered < Self.polls, missed.isEmpty, ContinuousClock.now < deadline {
            let response = try await server.send("GET", "/v1/events?since=\(cursor)&wait=5")
            try #require(response.status == 200, "\(response)")
            let events = try #require(response.json.arrayValue, "\(response.text)")
            let index = try #require(response.headers["x-alertd-index"].flatMap { UInt64($0) }, "\(response)")
            let ids = events.compactMap { $0["id"]?.int64Value.map(UInt64.init) }
            if let first = ids.first, first != last + 1 {
                missed.append("resumed from X-Alertd-Index \(cursor) after event \(last): next event was \(first)")
            }
            if let newest = ids.last {
                last = newest
                answered += 1
                if index != newest { missed.append("answer ends with event \(newest) but X-Alertd-Index is \(index)") }
            }
            cursor = index
        }
        for writer in writers {
            writer.cancel()
            _ = await writer.result
        }
        #expect(missed.isEmpty, "\(missed)")
        if missed.isEmpty {
            #expect(answered >= Self.polls, "only \(answered) long-polls with events before the deadline")
        }
        await server.stop()
    }
}
