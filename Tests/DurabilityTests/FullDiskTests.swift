import Foundation
import HTTPTestSupport
import JSON
import Testing

/// A commit that fails for lack of space (SQLite's page cap, `ALERTD_SQLITE_MAX_PAGE_COUNT`, stands in for a full
/// disk): its requests get `503`, never a 2xx; alertd takes no more writes, serves reads, and `/healthz` says it is
/// degraded, and the log has one error line that says why; started again while still full, it is degraded before any
/// write. After a restart with room, everything acknowledged is there.
@Suite("Full disk: 503 for writes, reads go on, degraded health", .spawnsProcesses)
struct FullDiskTests {
    @Test("creates until the journal is full: then 503 for every write, reads answered, /healthz degraded")
    func fullDisk() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.appending("data")
        // The pages a new journal takes, read from one alertd made and stopped; the cap leaves room for a few alerts.
        let fresh = AlertdProcess(dataDirectory: directory, arguments: ["--access-log", "off"])
        try await fresh.start()
        await fresh.stop()
        let pages = try await Self.pageCount(directory + "/alertd.sqlite3")
        let capped = AlertdProcess(dataDirectory: directory, arguments: ["--access-log", "off"],
                                   environment: ["ALERTD_SQLITE_MAX_PAGE_COUNT": String(pages + 4)])
        try await capped.start()

        var created: [JSONValue] = []
        var refused: WireResponse?
        let message = String(repeating: "x", count: 1000)
        while refused == nil, created.count < 5000 {
            let response = try await capped.send("POST", "/v1/alerts",
                                                 body: #"{"message":"\#(message)","buttons":["Cancel","OK"]}"#)
            if response.status == 201 { created.append(response.json) } else { refused = response }
        }
        let full = try #require(refused, "5000 creates fitted in \(pages + 4) pages")
        #expect(!created.isEmpty, "the very first create was refused: \(full)")
        expectUnavailable(full, "the create that found the journal full")

        let first = try #require(created.first?["id"]?.stringValue)
        expectUnavailable(try await capped.send("POST", "/v1/alerts", body: #"{"message":"later"}"#), "a later create")
        expectUnavailable(try await capped.send("POST", "/v1/alerts/\(first)/response", body: #"{"button":"OK"}"#),
                          "an answer")
        expectUnavailable(try await capped.send("DELETE", "/v1/alerts/\(first)"), "a dismissal")
        let read = try await capped.send("GET", "/v1/alerts/\(first)")
        #expect(read.status == 200 && read.json == created.first, "a read of an alert made before: \(read)")
        let health = try await capped.send("GET", "/healthz")
        #expect(health.status == 503 && health.json["status"]?.stringValue == "degraded", "/healthz: \(health)")
        // The operator's log says so once, with SQLite's reason.
        try await eventually("an error line for the failed commit", within: 10) {
            capped.standardErrorTail.contains(#""level":"error","msg":"the journal failed"#)
        }
        let failures = capped.standardErrorTail.components(separatedBy: "the journal failed").count - 1
        #expect(failures == 1, "one error line for the failure, not one per refused write: \(capped.standardErrorTail)")
        await capped.stop()

        // Started again on the full journal: degraded from the start, not only once the first write fails.
        try await capped.start()
        let restarted = try await capped.send("GET", "/healthz")
        #expect(restarted.status == 503 && restarted.json["status"]?.stringValue == "degraded",
                "/healthz after a restart on the full journal, before any write: \(restarted)")
        #expect(try await capped.send("GET", "/v1/alerts/\(first)").status == 200, "reads go on")
        expectUnavailable(try await capped.send("POST", "/v1/alerts", body: #"{"message":"still full"}"#),
                          "a create after the restart")
        await capped.stop()

        // With room again: every acknowledged alert is there, pending (the refused answer changed nothing).
        let roomy = AlertdProcess(dataDirectory: directory, arguments: ["--access-log", "off"])
        try await roomy.start()
        for alert in created {
            let again = try await roomy.send("GET", "/v1/alerts/\(alert["id"]?.stringValue ?? "-")")
            #expect(again.status == 200 && again.json == alert, "after a restart: \(again)")
        }
        #expect(try await roomy.send("GET", "/healthz").status == 200)
        #expect(try await roomy.send("POST", "/v1/alerts", body: #"{"message":"room again"}"#).status == 201)
        await roomy.stop()
    }

    @Test("a first start that fails before it could write the journal (no room) starts new once there is room")
    func firstStartWithoutRoom() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.appending("data")
        // Files of at most 512 bytes (RLIMIT_FSIZE, with SIGXFSZ ignored so that a longer write fails with EFBIG, as
        // on a full disk): the lock's pid fits, the journal's first page does not.
        let full = try ChildProcess("/bin/sh", [
            "-c", #"trap '' XFSZ; ulimit -f 1; exec "$0" --host 127.0.0.1 --port 0 --data-dir "$1""#,
            BuiltProduct.path("alertd"), directory,
        ], environment: AlertdProcess.environment(adding: [:]))
        let status = await full.wait(timeout: TestTime.bound(30))
        #expect(status != nil && status != 0, "it started without room: \(full.standardError)")

        let roomy = AlertdProcess(dataDirectory: directory, arguments: ["--access-log", "off"])
        try await roomy.start()
        let created = try await roomy.send("POST", "/v1/alerts", body: #"{"message":"room now"}"#)
        #expect(created.status == 201, "\(created)")
        #expect(await roomy.stop() == 0)
        try await roomy.start()
        let id = try #require(created.json["id"]?.stringValue)
        #expect(try await roomy.send("GET", "/v1/alerts/\(id)").status == 200, "the alert survives a restart")
        await roomy.stop()
    }

    /// `PRAGMA page_count` of a journal no alertd has open, read with the `sqlite3` command.
    private static func pageCount(_ file: String) async throws -> Int {
        let sqlite3 = "/usr/bin/sqlite3"
        try #require(FileManager.default.isExecutableFile(atPath: sqlite3),
                     "needs the sqlite3 command (Debian package sqlite3; scripts/deps.sh test installs it)")
        let query = try ChildProcess(sqlite3, [file, "PRAGMA page_count;"])
        let status = await query.wait(timeout: TestTime.bound(20))
        let count = Int(query.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
        return try #require(status == 0 ? count : nil,
                            "sqlite3 \(file): \(query.standardOutput) \(query.standardError)")
    }
}

/// A `503` `application/problem+json` for a write alertd could not make durable.
private func expectUnavailable(_ response: WireResponse, _ what: String,
                               sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(response.status == 503 && response.isProblem && response.json["status"]?.int64Value == 503,
            "\(what): \(response)", sourceLocation: sourceLocation)
}
