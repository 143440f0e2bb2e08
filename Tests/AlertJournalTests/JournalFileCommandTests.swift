import AlertCore
import AlertJournal
import Foundation
import HTTPTestSupport
import Testing

/// `alertd backup --data-dir DIR FILE` backs up the journal of a running alertd, `alertd restore --data-dir DIR FILE`
/// makes a backup a data dir's journal again as a new instance, and both say clearly when they cannot.
@Suite(.timeLimit(.minutes(1)))
struct JournalFileCommandTests {
    @Test func backsUpAnOpenJournal() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.file("data")
        let (journal, original) = try await open(data)
        defer { journal.close() }
        #expect(await journal.commit([.created(fullAlert(1), event: 1, idempotency: nil)]) == nil)

        let file = directory.file("copy.sqlite3")
        let child = try await AlertdProcess.run(["backup", "--data-dir", data, file])
        #expect(child.status == 0)
        #expect(child.standardOutput == "alertd: backed up \(data) to \(file)\n")

        let restored = directory.file("restored")
        let restore = try await AlertdProcess.run(["restore", "--data-dir", restored, file])
        #expect(restore.status == 0, "\(restore.standardError)")
        let step = SQLiteJournal.restoreIndexStep
        #expect(restore.standardOutput.contains("1 alerts; a new instance, its change index moved on from 1 to \(1 + step)"),
                "\(restore.standardOutput)")
        for leftover in [file + "-wal", file + "-shm"] {
            #expect(!FileManager.default.fileExists(atPath: leftover), "restore leaves nothing beside the backup")
        }
        let back = try await image(restored)
        #expect(back.alerts == [fullAlert(1)])
        #expect(back.epoch != original.epoch, "a restored journal is a new instance")
        #expect(back.changeIndex == 1 + step && back.events.isEmpty && back.historyFloor == 1 + step)
        #expect(original.historyFloor == 0, "a journal that was not restored has no floor")
    }

    @Test func restoreRefusesAJournalInPlaceADirInUseAndFilesThatAreNotBackups() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.file("data")
        let (journal, _) = try await open(data)
        #expect(await journal.commit([.created(fullAlert(1), event: 1, idempotency: nil)]) == nil)
        let file = directory.file("copy.sqlite3")
        try SQLiteJournal.backup(directory: data, to: file)

        let inUse = try await AlertdProcess.run(["restore", "--data-dir", data, file])
        #expect(inUse.status == 1)
        #expect(inUse.standardError.contains("in use by process \(getpid())"), "\(inUse.standardError)")
        journal.close()

        let inPlace = try await AlertdProcess.run(["restore", "--data-dir", data, file])
        #expect(inPlace.status == 1)
        #expect(inPlace.standardError.contains("already holds a journal"), "\(inPlace.standardError)")
        #expect(try await image(data).alerts == [fullAlert(1)], "the journal in place is left as it was")

        let notABackup = directory.file("not-a-backup")
        try Data("not a database, not at all".utf8).write(to: URL(fileURLWithPath: notABackup))
        let refused = try await AlertdProcess.run(["restore", "--data-dir", directory.file("empty"), notABackup])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("cannot restore \(notABackup)"), "\(refused.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("empty") + "/alertd.sqlite3"))
    }

    @Test func aDirWithoutAJournalOrAMissingFileIsAnError() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let missing = try await AlertdProcess.run(["backup", "--data-dir", directory.path, directory.file("out")])
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("there is no alertd journal in \(directory.path)"))

        let usage = try await AlertdProcess.run(["backup", "--data-dir", directory.path])
        #expect(usage.status == 64)
        #expect(usage.standardError.contains("usage: alertd backup --data-dir DIR FILE"))
    }

    @Test func aKilledRestoreLeavesNothingBesideTheBackupAndItsCopyIsRefusedThenCleared() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.file("data")
        let (journal, _) = try await open(data)
        // Big enough that the restore's copy takes a while.
        let message = String(repeating: "m", count: 2000)
        for batch in 0..<10 {
            let records = (UInt64(1)...2000).map { number in
                let sequence = UInt64(batch) * 2000 + number
                return JournalRecord.created(plainAlert(sequence, message: message), event: sequence, idempotency: nil)
            }
            #expect(await journal.commit(records) == nil)
        }
        let backups = directory.file("backups")
        try FileManager.default.createDirectory(atPath: backups, withIntermediateDirectories: false)
        let file = backups + "/backup.sqlite3"
        try SQLiteJournal.backup(directory: data, to: file)
        journal.close()

        let target = directory.file("target")
        let restore = try ChildProcess(AlertdProcess.executable, ["restore", "--data-dir", target, file])
        let deadline = ContinuousClock.now + .seconds(TestTime.bound(20))
        var copying = false
        while !copying, restore.isRunning, ContinuousClock.now < deadline {
            copying = restoring(target).isEmpty == false
            if !copying { try await Task.sleep(for: .milliseconds(1)) }
        }
        restore.send(SIGKILL)
        _ = await restore.wait(timeout: TestTime.bound(10))
        try #require(copying, "the restore finished before its copy was seen: \(restore.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: backups) == ["backup.sqlite3"],
                "a killed restore leaves files beside the backup")

        let error = await openError(target)
        #expect(error?.reason == .incomplete && error?.description.contains("interrupted alertd restore") == true,
                "\(String(describing: error))")
        let again = try await AlertdProcess.run(["restore", "--data-dir", target, file], timeout: TestTime.bound(60))
        #expect(again.status == 0, "\(again.standardError)")
        #expect(restoring(target).isEmpty)
        #expect(try await image(target).alerts.count == 20000)
    }

    /// The names in `directory` of a restore's copy.
    private func restoring(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter {
            $0.hasPrefix("alertd.sqlite3.restoring-")
        }
    }
}
