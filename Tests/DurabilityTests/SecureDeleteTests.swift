import Foundation
import HTTPTestSupport
import JSON
import Testing

/// A dropped alert's secure values leave the journal's bytes: SQLite overwrites deleted content (`secure_delete`),
/// so neither `alertd.sqlite3` nor a backup taken after holds them once the alert and its events are gone.
@Suite("Secure values after their deletion", .spawnsProcesses)
struct SecureDeleteTests {
    @Test("with --retention 0, an answered secure value is in neither the journal's file nor a backup once dropped")
    func secureValueGone() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.appending("data")
        // A short event history, so that the answer's event (which shows the alert) leaves it after a few more.
        let server = AlertdProcess(dataDirectory: directory,
                                   arguments: ["--access-log", "off", "--retention", "0", "--event-history", "8"])
        try await server.start()
        let secret = "sekrit-\(UUID().uuidString)"
        let created = try await server.send("POST", "/v1/alerts", body:
            #"{"title":"Password","buttons":["Cancel","OK"],"fields":[{"placeholder":"pw","secure":true}]}"#)
        let id = try #require(created.json["id"]?.stringValue, "\(created)")
        let answered = try await server.send("POST", "/v1/alerts/\(id)/response",
                                             body: #"{"button":"OK","values":["\#(secret)"]}"#)
        try #require(answered.status == 200, "\(answered)")
        for number in 1...40 {
            let more = try await server.send("POST", "/v1/alerts", body: #"{"message":"later \#(number)"}"#)
            try #require(more.status == 201, "\(more)")
        }
        try await eventually("the answered alert dropped", within: 10) {
            try await server.send("GET", "/v1/alerts/\(id)").status == 404
        }
        let backup = scratch.appending("backup.sqlite3")
        let copy = try await AlertdProcess.run(["backup", "--data-dir", directory, backup])
        #expect(copy.status == 0, "\(copy.standardError)")
        #expect(await server.stop() == 0)

        let needle = Data(secret.utf8)
        for file in [directory + "/alertd.sqlite3", directory + "/alertd.sqlite3-wal", backup] {
            let bytes = FileManager.default.contents(atPath: file) ?? Data()
            #expect(bytes.range(of: needle) == nil, "\(file) still holds the secure value")
        }
    }

    @Test("a dropped alert's events keep its row without the secure text and value, and still show it after a restart")
    func eventHistoryWithholdsSecureValues() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.appending("data")
        // The default event history: the answer's events stay in it, and so does the copy of the dropped alert.
        let server = AlertdProcess(dataDirectory: directory, arguments: ["--access-log", "off", "--retention", "0"])
        try await server.start()
        let initial = "initial-\(UUID().uuidString)"
        let secret = "sekrit-\(UUID().uuidString)"
        let created = try await server.send("POST", "/v1/alerts", body: #"""
            {"title":"Password","buttons":["Cancel","OK"],"fields":[{"placeholder":"pw","secure":true,"text":"\#(initial)"}]}
            """#)
        let id = try #require(created.json["id"]?.stringValue, "\(created)")
        let answered = try await server.send("POST", "/v1/alerts/\(id)/response",
                                             body: #"{"button":"OK","values":["\#(secret)"]}"#)
        try #require(answered.status == 200, "\(answered)")
        try await eventually("the answered alert dropped", within: 10) {
            try await server.send("GET", "/v1/alerts/\(id)").status == 404
        }
        let before = try await server.send("GET", "/v1/events?since=0&wait=0")
        #expect(await server.stop() == 0)

        for file in [directory + "/alertd.sqlite3", directory + "/alertd.sqlite3-wal"] {
            let bytes = FileManager.default.contents(atPath: file) ?? Data()
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(file) still holds the answered secure value")
            #expect(bytes.range(of: Data(initial.utf8)) == nil, "\(file) still holds the secure field's text")
        }
        try await server.start()
        let after = try await server.send("GET", "/v1/events?since=0&wait=0")
        #expect(after.status == 200 && after.json == before.json, "the events show the alert as before: \(after)")
        #expect(await server.stop() == 0)
    }
}
