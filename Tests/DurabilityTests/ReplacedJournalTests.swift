import Foundation
import HTTPTestSupport
import JSON
import Testing

/// The journal a running alertd writes is its own: `alertd backup` will not write onto it or into its data dir, and
/// a journal file another program renames over or deletes stops the writes (503, `/healthz` degraded, a log line
/// that says why) instead of acknowledging changes into a file the next start no longer sees.
@Suite("A journal replaced under a running alertd", .spawnsProcesses)
struct ReplacedJournalTests {
    @Test("alertd backup onto the live journal or into its data dir is refused, and the journal keeps every alert")
    func backupOntoTheJournal() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.appending("data")
        let server = AlertdProcess(dataDirectory: directory, arguments: ["--access-log", "off"])
        try await server.start()
        var created: [JSONValue] = []
        for number in 1...3 {
            let response = try await server.send("POST", "/v1/alerts", body: #"{"message":"before \#(number)"}"#)
            try #require(response.status == 201, "\(response)")
            created.append(response.json)
        }
        let linked = scratch.appending("linked.sqlite3")
        #expect(link(directory + "/alertd.sqlite3", linked) == 0)
        let viaLink = scratch.appending("via-link")
        #expect(symlink(directory, viaLink) == 0)
        for target in [directory + "/alertd.sqlite3", directory + "/copy.sqlite3", linked,
                       viaLink + "/alertd.sqlite3", directory + "/../data/alertd.sqlite3"] {
            let backup = try await AlertdProcess.run(["backup", "--data-dir", directory, target])
            #expect(backup.status == 1, "\(target): \(backup.standardError)")
            #expect(backup.standardError.contains(target) && backup.standardError.contains("elsewhere"),
                    "\(target): \(backup.standardError)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory + "/copy.sqlite3"))
        let after = try await server.send("POST", "/v1/alerts", body: #"{"message":"after"}"#)
        try #require(after.status == 201, "\(after)")
        created.append(after.json)

        await server.stop()
        try await server.start()
        for alert in created {
            let read = try await server.send("GET", "/v1/alerts/\(alert["id"]?.stringValue ?? "-")")
            #expect(read.status == 200 && read.json == alert, "after a restart: \(read)")
        }
        await server.stop()
    }

    @Test("a write-ahead log deleted while alertd runs: writes get 503 instead of going into the deleted file")
    func logDeleted() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.appending("data")
        let server = AlertdProcess(dataDirectory: directory, arguments: ["--access-log", "off"])
        try await server.start()
        #expect(try await server.send("POST", "/v1/alerts", body: #"{"message":"kept"}"#).status == 201)
        #expect(unlink(directory + "/alertd.sqlite3-wal") == 0)
        let refused = try await server.send("POST", "/v1/alerts", body: #"{"message":"into a deleted log"}"#)
        #expect(refused.status == 503 && refused.isProblem, "a create after the log was deleted: \(refused)")
        #expect(try await server.send("GET", "/healthz").status == 503)
        await server.stop()
    }

    @Test("a journal file renamed over while alertd runs: writes get 503, /healthz degraded, the log says why")
    func renamedOver() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.appending("data")
        let server = AlertdProcess(dataDirectory: directory, arguments: ["--access-log", "off"])
        try await server.start()
        let kept = try await server.send("POST", "/v1/alerts", body: #"{"message":"kept"}"#)
        try #require(kept.status == 201, "\(kept)")
        // Another program's copy of the file takes the journal's name; the journal alertd has open is now nameless.
        let journal = directory + "/alertd.sqlite3"
        let other = directory + "/other"
        try FileManager.default.copyItem(atPath: journal, toPath: other)
        #expect(rename(other, journal) == 0)

        // /healthz tells before any write finds it.
        let health = try await server.send("GET", "/healthz")
        #expect(health.status == 503 && health.json["status"]?.stringValue == "degraded"
                    && health.json["reason"]?.stringValue?.contains("was replaced or removed") == true,
                "/healthz: \(health)")
        let refused = try await server.send("POST", "/v1/alerts", body: #"{"message":"into a nameless file"}"#)
        #expect(refused.status == 503 && refused.isProblem, "a create after the rename: \(refused)")
        try await eventually("a log line that names the replaced file", within: 10) {
            server.standardErrorTail.contains("the journal failed")
                && server.standardErrorTail.contains("was replaced or removed while alertd ran")
        }
        #expect(try await server.send("POST", "/v1/alerts", body: #"{"message":"later"}"#).status == 503)
        await server.stop()
    }
}
