import AlertCore
import AlertJournal
import Foundation
import Testing

/// Only a data dir that never held a journal starts a new one: `DIR/alertd.mark` says that one was there, whose it
/// was and how far it was committed, and a journal gone, emptied, swapped, put back from an older copy, or left in
/// parts is refused, saying what to do, with the files as they were.
@Suite(.timeLimit(.minutes(1)))
struct IncompleteDataDirTests {
    /// A data dir with a closed journal of three alerts.
    private func journalOfThree(_ directory: TemporaryDirectory) async throws -> String {
        let data = directory.file("data")
        let (journal, _) = try await open(data)
        let records = (UInt64(1)...3).map { JournalRecord.created(plainAlert($0), event: $0, idempotency: nil) }
        #expect(await journal.commit(records) == nil)
        journal.close()
        return data
    }

    @Test func anEmptiedJournalIsRefusedNotTakenForANewOne() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let data = try await journalOfThree(directory)
        #expect(truncate(data + "/alertd.sqlite3", 0) == 0)
        let error = await openError(data)
        #expect(error?.reason == .incomplete)
        #expect(error?.description.contains("is empty (0 bytes), but this data dir held a journal") == true, "\(error!)")
        #expect(error?.description.contains("alertd restore") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: data + "/alertd.sqlite3")).isEmpty)
    }

    @Test func aMissingJournalIsRefusedWhereTheMarkSaysOneWas() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let data = try await journalOfThree(directory)
        #expect(unlink(data + "/alertd.sqlite3") == 0)
        let error = await openError(data)
        #expect(error?.reason == .incomplete)
        #expect(error?.description.contains("is missing") == true, "\(error!)")
        #expect(!FileManager.default.fileExists(atPath: data + "/alertd.sqlite3"), "nothing was made in its place")
    }

    @Test func anEmptyFileInADirWithoutAMarkIsRefusedToo() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.file("data")
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: false)
        #expect(FileManager.default.createFile(atPath: data + "/alertd.sqlite3", contents: Data()))
        let error = await openError(data)
        #expect(error?.reason == .incomplete)
        #expect(error?.description.contains("does not take it for a new journal") == true, "\(error!)")
    }

    @Test func aLogWithoutItsDatabaseIsRefused() async throws {
        for name in ["alertd.sqlite3-wal", "alertd.sqlite3-shm"] {
            let directory = TemporaryDirectory()
            defer { directory.remove() }
            let data = directory.file("data")
            try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: false)
            let log = Data(repeating: 0x5A, count: 4096)
            #expect(FileManager.default.createFile(atPath: data + "/" + name, contents: log))
            let error = await openError(data)
            #expect(error?.reason == .incomplete, "\(name)")
            #expect(error?.description.contains("\(name) is there without its database") == true, "\(error!)")
            #expect(!FileManager.default.fileExists(atPath: data + "/alertd.sqlite3"), "\(name)")
            #expect(FileManager.default.contents(atPath: data + "/" + name) == log, "\(name) is left as it was")
        }
    }

    @Test func whatAnInterruptedRestoreLeftIsRefusedAndTheNextRestoreClearsIt() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let data = try await journalOfThree(directory)
        let backup = directory.file("backup.sqlite3")
        try SQLiteJournal.backup(directory: data, to: backup)
        let target = directory.file("target")
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
        let leftover = target + "/alertd.sqlite3.restoring-99999"
        try FileManager.default.copyItem(atPath: backup, toPath: leftover)
        let error = await openError(target)
        #expect(error?.reason == .incomplete)
        #expect(error?.description.contains("interrupted alertd restore") == true, "\(error!)")
        #expect(!FileManager.default.fileExists(atPath: target + "/alertd.sqlite3"))

        _ = try SQLiteJournal.restore(backup: backup, into: target)
        #expect(!FileManager.default.fileExists(atPath: leftover))
        #expect(try await image(target).alerts == (1...3).map { plainAlert($0) })
    }

    @Test func aJournalFromBeforeTheMarkIsAdoptedAndMarked() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let data = try await journalOfThree(directory)
        let mark = data + "/alertd.mark"
        #expect(unlink(mark) == 0)
        #expect(try await image(data).alerts.count == 3)
        #expect(FileManager.default.fileExists(atPath: mark))
        #expect(unlink(data + "/alertd.sqlite3") == 0)
        #expect(await openError(data)?.reason == .incomplete, "once marked, its loss is noticed")
    }

    @Test func anotherJournalInPlaceOfTheOneTheDirHeldIsRefused() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let data = try await journalOfThree(directory)
        let other = directory.file("other")
        _ = try await image(other)
        #expect(rename(other + "/alertd.sqlite3", data + "/alertd.sqlite3") == 0)
        let error = await openError(data)
        #expect(error?.reason == .incomplete)
        #expect(error?.description.contains("is not the journal this data dir held") == true, "\(error!)")
    }

    @Test func anOlderCopyPutBackIsBehindTheMarkAndRefused() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let data = try await journalOfThree(directory)
        let copy = directory.file("copy.sqlite3")
        try SQLiteJournal.backup(directory: data, to: copy)
        let (journal, _) = try await open(data)
        #expect(await journal.commit([.created(plainAlert(4), event: 4, idempotency: nil)]) == nil)
        journal.close()
        #expect(rename(copy, data + "/alertd.sqlite3") == 0)
        let error = await openError(data)
        #expect(error?.reason == .behind(found: 3, marked: 4))
        #expect(error?.description.contains("ends at change index 3, but commits up to 4 were acknowledged") == true,
                "\(error!)")
    }

    @Test func aMarkThatSaysSomethingElseIsRefusedAndLeftAsItIs() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let data = try await journalOfThree(directory)
        let garbage = Data("not what alertd writes\n".utf8)
        try garbage.write(to: URL(fileURLWithPath: data + "/alertd.mark"))
        let error = await openError(data)
        #expect(error?.reason == .corrupt)
        #expect(error?.description.contains("alertd.mark is damaged") == true, "\(error!)")
        #expect(FileManager.default.contents(atPath: data + "/alertd.mark") == garbage)
    }
}
