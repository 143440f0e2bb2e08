import Foundation
import HTTPTestSupport
import JSON
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A journal that holds less than alertd acknowledged (a damaged write-ahead log SQLite stops reading early, a file
/// emptied) is refused at start, with what to do, instead of starting without those commits and handing their
/// event ids out again.
@Suite("Lost commits: a journal behind what was acknowledged is refused", .spawnsProcesses)
struct LostCommitsTests {
    @Test("one flipped bit in the write-ahead log after a kill: alertd refuses, names the loss, leaves the log")
    func flippedBitInTheLog() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.appending("data")
        let log = directory + "/alertd.sqlite3-wal"
        let server = AlertdProcess(dataDirectory: directory, arguments: ["--access-log", "off"])
        // Creates, then a kill at once, so that the log still holds their commits (it is emptied after 1 s without
        // a write); again if the kill came too late.
        var frames = 0
        var acknowledged = 0
        try await eventually("a kill that finds the commits in the log", within: 120) {
            try await server.start()
            for number in 1...40 {
                let created = try await server.send("POST", "/v1/alerts", body: #"{"message":"m\#(number)"}"#)
                try #require(created.status == 201, "\(created)")
                acknowledged += 1
            }
            try await server.kill()
            frames = Self.frames(log)
            return frames >= 40
        }
        // One bit of a page in the middle of the log: SQLite takes the log to end before that frame.
        let offset = 32 + (frames / 2) * (24 + 4096) + 24 + 1000
        let handle = try #require(FileHandle(forUpdatingAtPath: log))
        try handle.seek(toOffset: UInt64(offset))
        let byte = try #require(try handle.read(upToCount: 1)?.first)
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: [byte ^ 0x10])
        try handle.close()
        let damaged = FileManager.default.contents(atPath: log)

        let refusal = try await AlertdProcess.refusal(dataDirectory: directory)
        #expect(refusal.refused, "\(acknowledged) acknowledged creates: \(refusal)")
        #expect(refusal.standardError.contains("were acknowledged") && refusal.standardError.contains("restore"),
                "the message does not say that acknowledged commits are missing: \(refusal)")
        #expect(FileManager.default.contents(atPath: log) == damaged, "alertd changed the log")
    }

    @Test("a journal emptied to 0 bytes: alertd refuses to start empty over it and says what to do")
    func emptiedJournal() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.appending("data")
        let server = AlertdProcess(dataDirectory: directory, arguments: ["--access-log", "off"])
        try await server.start()
        #expect(try await server.send("POST", "/v1/alerts", body: #"{"message":"kept"}"#).status == 201)
        #expect(await server.stop() == 0)
        let file = directory + "/alertd.sqlite3"
        #expect(truncate(file, 0) == 0)

        let refusal = try await AlertdProcess.refusal(dataDirectory: directory)
        #expect(refusal.refused, "\(refusal)")
        #expect(refusal.standardError.contains(file) && refusal.standardError.contains("empty")
                    && refusal.standardError.contains("alertd restore"), "\(refusal)")
        #expect(FileManager.default.contents(atPath: file)?.isEmpty == true, "alertd wrote into \(file)")
    }

    /// The frames in a write-ahead log (4 KiB pages), 0 without one.
    private static func frames(_ log: String) -> Int {
        var status = stat()
        guard stat(log, &status) == 0, status.st_size > 32 else { return 0 }
        return (Int(status.st_size) - 32) / (24 + 4096)
    }
}
