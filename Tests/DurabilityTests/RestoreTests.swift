import Foundation
import HTTPTestSupport
import JSON
import Testing

/// `alertd restore` brings a backup back as a new instance: what the backup holds is there, what came after it is
/// gone, and clients of the old instance notice instead of being handed other events under ids they have seen.
@Suite("Restoring a backup", .spawnsProcesses)
struct RestoreTests {
    @Test("after a restore: the backup's alerts, a new instance, old cursors 410 and event ids never reused")
    func restoreIsANewInstance() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let data = scratch.appending("data")
        let backup = scratch.appending("backup.sqlite3")

        let old = AlertdProcess(dataDirectory: data, arguments: ["--access-log", "off"])
        try await old.start()
        let kept = try await old.send("POST", "/v1/alerts", body: #"{"title":"before the backup"}"#)
        try #require(kept.status == 201, "\(kept)")
        let copy = try await AlertdProcess.run(["backup", "--data-dir", data, backup])
        #expect(copy.status == 0, "\(copy.standardError)")
        let lost = try await old.send("POST", "/v1/alerts", body: #"{"title":"after the backup"}"#)
        try #require(lost.status == 201, "\(lost)")
        let seen = try await old.send("GET", "/v1/events?since=0&wait=0")
        let cursor = try #require(seen.headers["x-alertd-index"].flatMap { UInt64($0) })
        #expect(cursor == 2, "\(seen)")
        let oldInstance = seen.headers["x-alertd-instance"]
        await old.stop()

        let restoredData = scratch.appending("restored")
        let restore = try await AlertdProcess.run(["restore", "--data-dir", restoredData, backup])
        #expect(restore.status == 0, "\(restore.standardError)")
        let restored = AlertdProcess(dataDirectory: restoredData, arguments: ["--access-log", "off"])
        try await restored.start()

        let keptID = try #require(kept.json["id"]?.stringValue)
        let lostID = try #require(lost.json["id"]?.stringValue)
        #expect(try await restored.send("GET", "/v1/alerts/\(keptID)").json == kept.json, "the backup's alert is back")
        #expect(try await restored.send("GET", "/v1/alerts/\(lostID)").status == 404, "what came after is gone")

        // The follower's cursor from the old instance: 410, now and once new events pass it.
        let stale = try await restored.send("GET", "/v1/events?since=\(cursor)&wait=0")
        #expect(stale.status == 410 && stale.isProblem, "\(stale)")
        #expect(stale.headers["x-alertd-instance"] != oldInstance, "a restored alertd is a new instance")
        let fresh = try await restored.send("POST", "/v1/alerts", body: #"{"title":"after the restore"}"#)
        try #require(fresh.status == 201, "\(fresh)")
        #expect(try await restored.send("GET", "/v1/events?since=\(cursor)&wait=0").status == 410)

        // Listing again gives the cursor that goes on, and the next event's id was never handed out before.
        let listed = try await restored.send("GET", "/v1/alerts")
        let index = try #require(listed.json["index"]?.int64Value.map(UInt64.init))
        #expect(index > cursor + (1 << 31), "the change index moved on past any the old instance handed out: \(index)")
        let next = try await restored.send("POST", "/v1/alerts", body: #"{"title":"next"}"#)
        try #require(next.status == 201, "\(next)")
        let events = try await restored.send("GET", "/v1/events?since=\(index)&wait=5")
        #expect(events.json.arrayValue?.compactMap { $0["id"]?.int64Value } == [Int64(index) + 1], "\(events)")
        await restored.stop()
    }

    @Test("a producer's cursor from before the restore still gets 410 once the restored alertd has restarted")
    func producerCursorAfterARestartOfTheRestored() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let data = scratch.appending("data")
        let backup = scratch.appending("backup.sqlite3")
        let tokens = ["ALERTD_TOKENS": "ci:producer:ci-token-0123456789abcdef"]
        let producer = [("Authorization", "Bearer ci-token-0123456789abcdef")]

        let old = AlertdProcess(dataDirectory: data, arguments: ["--access-log", "off"], environment: tokens)
        try await old.start()
        try #require(try await old.send("POST", "/v1/alerts", body: #"{"title":"kept"}"#, headers: producer)
            .status == 201)
        let copy = try await AlertdProcess.run(["backup", "--data-dir", data, backup])
        #expect(copy.status == 0, "\(copy.standardError)")
        try #require(try await old.send("POST", "/v1/alerts", body: #"{"title":"lost"}"#, headers: producer)
            .status == 201)
        let seen = try await old.send("GET", "/v1/events?since=0&wait=0", headers: producer)
        let cursor = try #require(seen.headers["x-alertd-index"].flatMap { UInt64($0) })
        #expect(cursor == 2, "\(seen)")
        await old.stop()

        let restoredData = scratch.appending("restored")
        let restore = try await AlertdProcess.run(["restore", "--data-dir", restoredData, backup])
        #expect(restore.status == 0, "\(restore.standardError)")
        let restored = AlertdProcess(dataDirectory: restoredData, arguments: ["--access-log", "off"],
                                     environment: tokens)
        try await restored.start()
        try #require(try await restored.send("POST", "/v1/alerts", body: #"{"title":"new"}"#, headers: producer)
            .status == 201)
        #expect(try await restored.send("GET", "/v1/events?since=\(cursor)&wait=0", headers: producer).status == 410)

        // A restart reads the restored journal back, now with an event: the old cursor is still not resumable.
        await restored.stop()
        try await restored.start()
        let stale = try await restored.send("GET", "/v1/events?since=\(cursor)&wait=0", headers: producer)
        #expect(stale.status == 410 && stale.isProblem, "\(stale)")
        let listed = try await restored.send("GET", "/v1/alerts", headers: producer)
        let index = try #require(listed.json["index"]?.int64Value.map(UInt64.init))
        #expect(try await restored.send("GET", "/v1/events?since=\(index)&wait=0", headers: producer).status == 200)
        await restored.stop()
    }
}
