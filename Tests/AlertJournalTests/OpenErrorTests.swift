import AlertCore
import AlertJournal
import Foundation
import Testing

/// A data dir alertd cannot use is refused with a message that says why, and the file in it is left as it was.
@Suite(.timeLimit(.minutes(1)))
struct OpenErrorTests {
    @Test func aDataDirHeldByAnotherJournalIsRefusedNamingTheHolder() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (holder, _) = try await open(directory.path)
        let error = await openError(directory.path, held: true)
        #expect(error?.reason == .locked(pid: getpid()))
        #expect(error?.description.contains("in use by process \(getpid())") == true)
        #expect(error?.description.contains(directory.path) == true)
        // The holder still writes.
        #expect(await holder.commit([.created(plainAlert(1), event: 1, idempotency: nil)]) == nil)
        holder.close()
        // Once it is closed the directory opens, with what the holder wrote.
        #expect(try await image(directory.path).alerts == [plainAlert(1)])
    }

    @Test func aNewerSchemaIsRefusedAndLeftAsItIs() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        _ = try await image(directory.path)
        let database = directory.file("alertd.sqlite3")
        rawSQL(database, "PRAGMA user_version = 99")
        let error = await openError(directory.path)
        #expect(error?.reason == .newerSchema(found: 99, supported: 4))
        #expect(error?.description.contains("schema version 99") == true)
        #expect(rawSQL(database, "PRAGMA user_version") == 99)
    }

    @Test func aFileThatIsNotADatabaseIsRefusedAndLeftUntouched() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let database = directory.file("alertd.sqlite3")
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try garbage.write(to: URL(fileURLWithPath: database))
        let error = await openError(directory.path)
        #expect(error?.reason == .corrupt)
        #expect(error?.description.contains("leaves it untouched") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == garbage)
        #expect(!FileManager.default.fileExists(atPath: database + "-wal"))
    }

    @Test func aDamagedJournalIsRefusedNotStartedEmpty() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (journal, _) = try await open(directory.path)
        let records = (UInt64(1)...200).map { JournalRecord.created(plainAlert($0, message: "m"), event: $0, idempotency: nil) }
        #expect(await journal.commit(records) == nil)
        journal.close()
        // Overwrite the pages after the first two with garbage.
        let database = directory.file("alertd.sqlite3")
        let handle = try #require(FileHandle(forUpdatingAtPath: database))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: 2 * 4096)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: Int(size) - 2 * 4096))
        try handle.close()
        let damaged = try Data(contentsOf: URL(fileURLWithPath: database))

        #expect(await openError(directory.path)?.reason == .corrupt)
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == damaged)
    }

    @Test func anotherProgramsDatabaseIsRefused() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let database = directory.file("alertd.sqlite3")
        rawSQL(database, "CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('mine')")
        let error = await openError(directory.path)
        #expect(error?.reason == .foreign)
        #expect(rawSQL(database, "SELECT count(*) FROM notes") == 1)
    }

    @Test func aDataDirThatCannotBeCreatedIsRefused() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.file("a-file")
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        let error = await openError(file + "/data")
        #expect(error?.reason == .directory)
        #expect(error?.description.contains("cannot create the data directory \(file)/data: Not a directory") == true)
        #expect(await openError(file)?.description.contains("is not a directory") == true)
    }

    @Test(.enabled(if: geteuid() != 0, "root writes in read-only directories"))
    func aDataDirThatCannotBeWrittenIsRefused() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.file("data")
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: false)
        chmod(data, 0o500)
        defer { chmod(data, 0o700) }
        let error = await openError(data)
        #expect(error?.reason == .directory)
        #expect(error?.description.contains("cannot write in the data directory") == true)
        #expect(error?.description.contains("owned by uid \(getuid())") == true, "\(error!)")
        #expect(error?.description.contains("alertd runs as uid \(getuid())") == true, "\(error!)")
    }

    @Test func aMissingDataDirIsCreatedWithItsParents() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.file("a/b/data")
        #expect(await openError(data) == nil)
        #expect(FileManager.default.fileExists(atPath: data + "/alertd.sqlite3"))
        let lock = try String(contentsOfFile: data + "/alertd.lock", encoding: .utf8)
        #expect(lock == "\(getpid())\n")
    }
}
