import Foundation
import HTTPTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A data dir alertd cannot use safely (held, damaged, newer, unwritable, or not alertd's alone): it refuses to start,
/// says why, exits non-zero, and leaves the files as they were.
@Suite("Start-up refusals: a held, damaged, newer or unwritable data dir", .spawnsProcesses)
struct StartupRefusalTests {
    @Test("a data dir held by a running alertd: the second refuses and names the holder's pid")
    func heldByAnother() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.appending("data")
        let holder = AlertdProcess(dataDirectory: directory, arguments: ["--access-log", "off"])
        try await holder.start()
        let created = try await holder.send("POST", "/v1/alerts", body: #"{"message":"kept"}"#)
        #expect(created.status == 201, "\(created)")
        let pid = try #require(holder.child?.pid)

        let second = try await AlertdProcess.refusal(dataDirectory: directory)
        #expect(second.refused, "\(second)")
        #expect(second.standardError.contains(String(pid)), "the message does not name process \(pid): \(second)")
        // The holder goes on serving what it has.
        let read = try await holder.send("GET", "/v1/alerts/\(created.json["id"]?.stringValue ?? "-")")
        #expect(read.status == 200, "\(read)")
        await holder.stop()
    }

    @Test("a damaged journal (garbage bytes): alertd refuses, names the file, and leaves it untouched")
    func damagedFile() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.appending("data")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let file = directory + "/alertd.sqlite3"
        let garbage = Data((0..<65536).map { _ in UInt8.random(in: 0...255) })
        try garbage.write(to: URL(fileURLWithPath: file))

        let refusal = try await AlertdProcess.refusal(dataDirectory: directory)
        #expect(refusal.refused, "\(refusal)")
        #expect(refusal.standardError.contains(file), "the message does not name \(file): \(refusal)")
        #expect(FileManager.default.contents(atPath: file) == garbage, "alertd changed \(file)")
    }

    @Test("a journal with a newer schema version: alertd refuses, says so, and leaves it untouched")
    func newerSchema() async throws {
        let sqlite3 = "/usr/bin/sqlite3"
        try #require(FileManager.default.isExecutableFile(atPath: sqlite3),
                     "needs the sqlite3 command (Debian package sqlite3; scripts/deps.sh test installs it)")
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.appending("data")
        let server = AlertdProcess(dataDirectory: directory, arguments: ["--access-log", "off"])
        try await server.start()
        #expect(try await server.send("POST", "/v1/alerts", body: #"{"message":"old"}"#).status == 201)
        #expect(await server.stop() == 0)
        let file = directory + "/alertd.sqlite3"
        let setVersion = try ChildProcess(sqlite3, [file, "PRAGMA user_version = 999;"])
        #expect(await setVersion.wait(timeout: TestTime.bound(20)) == 0, "sqlite3: \(setVersion.standardError)")
        let before = FileManager.default.contents(atPath: file)

        let refusal = try await AlertdProcess.refusal(dataDirectory: directory)
        #expect(refusal.refused, "\(refusal)")
        #expect(refusal.standardError.contains("999") && refusal.standardError.contains("newer"),
                "the message does not say the schema (999) is newer: \(refusal)")
        #expect(FileManager.default.contents(atPath: file) == before, "alertd changed \(file)")
    }

    @Test("a data dir that cannot be created: a clear message at start, non-zero exit")
    func cannotCreate() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // A path under a regular file cannot be made, not even by root.
        let file = scratch.appending("file")
        try Data("not a folder\n".utf8).write(to: URL(fileURLWithPath: file))
        for directory in [file + "/data", file] {
            let refusal = try await AlertdProcess.refusal(dataDirectory: directory)
            #expect(refusal.refused, "\(directory): \(refusal)")
            #expect(refusal.standardError.contains(directory), "the message does not name \(directory): \(refusal)")
        }
    }

    @Test("a data dir alertd cannot write in: a clear message at start, non-zero exit")
    func cannotWrite() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.appending("data")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // chmod does not stop root; an immutable folder (chattr +i) stops everyone, where the file system has it.
        let locked: Bool
        if getuid() != 0 {
            locked = chmod(directory, 0o555) == 0
        } else {
            let chattr = try ChildProcess("/usr/bin/chattr", ["+i", directory])
            locked = await chattr.wait(timeout: TestTime.bound(10)) == 0
            if !locked {
                print("StartupRefusalTests.cannotWrite: skipped as root: chattr +i failed: \(chattr.standardError)")
            }
        }
        guard locked else { return }
        let refusal = try? await AlertdProcess.refusal(dataDirectory: directory)
        // Writable again, so that the scratch folder can be removed.
        if getuid() == 0 {
            _ = await (try ChildProcess("/usr/bin/chattr", ["-i", directory])).wait(timeout: TestTime.bound(10))
        } else {
            chmod(directory, 0o700)
        }
        let outcome = try #require(refusal)
        #expect(outcome.refused, "\(outcome)")
        #expect(outcome.standardError.contains(directory), "the message does not name \(directory): \(outcome)")
        #expect(outcome.standardError.contains("owned by uid \(getuid())")
                    && outcome.standardError.contains("alertd runs as uid \(getuid())"),
                "the message does not name the owner and the user alertd runs as: \(outcome)")
    }

    @Test("a data dir others can write in, or a lock file that is a symbolic link: refused, the link's target kept")
    func untrustedDataDir() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.appending("data")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        #expect(chmod(directory, 0o777) == 0)
        let open = try await AlertdProcess.refusal(dataDirectory: directory)
        #expect(open.refused && open.standardError.contains("can be written by others"), "\(open)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/alertd.sqlite3"), "alertd made its journal")

        #expect(chmod(directory, 0o700) == 0)
        let victim = scratch.appending("victim")
        let contents = Data("a file the lock's link points to\n".utf8)
        try contents.write(to: URL(fileURLWithPath: victim))
        #expect(symlink(victim, directory + "/alertd.lock") == 0)
        let linked = try await AlertdProcess.refusal(dataDirectory: directory)
        #expect(linked.refused && linked.standardError.contains("alertd.lock is a symbolic link"), "\(linked)")
        #expect(FileManager.default.contents(atPath: victim) == contents, "alertd wrote through the link")
    }
}
