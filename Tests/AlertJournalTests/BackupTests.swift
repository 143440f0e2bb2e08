import AlertCore
import AlertJournal
import Foundation
import Testing

/// `backup` copies a running journal into a file that, put in a data dir, opens with the same image.
@Suite(.timeLimit(.minutes(1)))
struct BackupTests {
    @Test func aBackupOfARunningJournalOpensWithTheSameImage() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.file("data")
        let (journal, _) = try await open(data, eventHistory: 1000)
        let key = IdempotencyRecord(owner: "ci", key: "k", draft: fullDraft())
        #expect(await journal.commit([.created(fullAlert(1), event: 1, idempotency: key)]) == nil)
        #expect(await journal.commit([.resolved(resolved(fullAlert(1), .answered, button: 1), event: 2)]) == nil)
        let records = (UInt64(2)...500).map { JournalRecord.created(plainAlert($0), event: $0 + 1, idempotency: nil) }
        #expect(await journal.commit(records) == nil)

        let file = directory.file("backup.sqlite3")
        try SQLiteJournal.backup(directory: data, to: file)
        // What commits after the backup is not in it.
        #expect(await journal.commit([.created(plainAlert(501), event: 502, idempotency: nil)]) == nil)
        let live = try #require(journal.statistics.failure == nil ? journal : nil)
        live.close()

        let restored = directory.file("restored")
        try FileManager.default.createDirectory(atPath: restored, withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: file, toPath: restored + "/alertd.sqlite3")
        let copy = try await image(restored, eventHistory: 1000)
        let original = try await image(data, eventHistory: 1000)
        #expect(copy.epoch == original.epoch)
        #expect(original.alerts.count == 501 && original.events.count == 502)
        #expect(copy.alerts.count == 500 && copy.events.count == 501)
        #expect(copy.alerts == Array(original.alerts.dropLast()))
        #expect(copy.events == Array(original.events.dropLast()))
        #expect(copy.changeIndex == 501)
        #expect(copy.keyRows == original.keyRows)
        #expect(!FileManager.default.fileExists(atPath: "\(file).partial-\(getpid())"))
    }

    @Test func aBackupOfADirWithoutAJournalFailsClearly() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        #expect {
            try SQLiteJournal.backup(directory: directory.path, to: directory.file("out"))
        } throws: { error in
            "\(error)".contains("there is no alertd journal in \(directory.path)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.file("out")))
    }

    @Test func aBackupIntoTheDataDirOrOntoAJournalFileIsRefusedAndTheJournalGoesOn() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.file("data")
        let (journal, _) = try await open(data)
        #expect(await journal.commit([.created(plainAlert(1), event: 1, idempotency: nil)]) == nil)
        let linked = directory.file("linked")
        #expect(link(data + "/alertd.sqlite3-wal", linked) == 0)
        for target in [data + "/alertd.sqlite3", data + "/sub/../backup", directory.file("data/./x"), linked] {
            #expect(throws: JournalBackupError.self, "\(target)") {
                try SQLiteJournal.backup(directory: data, to: target)
            }
        }
        #expect(await journal.commit([.created(plainAlert(2), event: 2, idempotency: nil)]) == nil)
        #expect(journal.statistics.failure == nil)
        journal.close()
        #expect(try await image(data).alerts == [plainAlert(1), plainAlert(2)])
    }
}

/// What a backup or restore that was killed left behind is cleared by the next one, and never read as a journal.
@Suite(.timeLimit(.minutes(1)))
struct InterruptedBackupTests {
    @Test func theNextBackupRemovesTheCopyAKilledOneLeftAndKeepsOnesStillBeingWritten() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.file("data")
        let (journal, _) = try await open(data)
        defer { journal.close() }
        #expect(await journal.commit([.created(fullAlert(1), event: 1, idempotency: nil)]) == nil)
        let file = directory.file("backup.sqlite3")
        // A process that has exited: its pid names no running backup.
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let stale = "\(file).partial-\(gone.processIdentifier)"
        let running = "\(file).partial-1"
        for leftover in [stale, running] {
            #expect(FileManager.default.createFile(atPath: leftover, contents: Data("secure values".utf8),
                                                   attributes: [.posixPermissions: 0o600]))
        }
        try SQLiteJournal.backup(directory: data, to: file)
        #expect(!FileManager.default.fileExists(atPath: stale), "the killed backup's copy is removed")
        #expect(FileManager.default.fileExists(atPath: running), "a copy of a process that runs is kept")
        #expect(FileManager.default.fileExists(atPath: file))
    }

    @Test func restoreReadsABackupOfAnyNameAndMakesNothingBesideIt() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.file("data")
        let (journal, _) = try await open(data)
        #expect(await journal.commit([.created(fullAlert(1), event: 1, idempotency: nil)]) == nil)
        let backups = directory.file("backups")
        try FileManager.default.createDirectory(atPath: backups, withIntermediateDirectories: false)
        let file = backups + "/backup?#%.sqlite3"
        try SQLiteJournal.backup(directory: data, to: file)
        journal.close()
        let before = try FileManager.default.contentsOfDirectory(atPath: backups)
        _ = try SQLiteJournal.restore(backup: file, into: directory.file("restored"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: backups) == before)
        #expect(try await image(directory.file("restored")).alerts == [fullAlert(1)])
    }
}
