import AlertCore
import AlertJournal
import Foundation
import HTTPTestSupport
import Testing

/// `alertd backup --data-dir DIR FILE` backs up the journal of a running alertd, and says clearly when it cannot.
@Suite(.timeLimit(.minutes(1)))
struct BackupCommandTests {
    /// The built `alertd`, in the folder of the test bundle or one above it.
    static let alertd: String = {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = bundle.deletingLastPathComponent()
        while folder.path != "/", !FileManager.default.isExecutableFile(atPath: folder.path + "/alertd") {
            folder.deleteLastPathComponent()
        }
        return folder.path + "/alertd"
    }()

    @Test func backsUpAnOpenJournal() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.file("data")
        let (journal, _) = try await open(data)
        defer { journal.close() }
        #expect(await journal.commit([.created(fullAlert(1), event: 1, idempotency: nil)]) == nil)

        let file = directory.file("copy.sqlite3")
        let child = try ChildProcess(Self.alertd, ["backup", "--data-dir", data, file])
        #expect(await child.wait(timeout: TestTime.bound(20)) == 0)
        #expect(child.standardOutput == "alertd: backed up \(data) to \(file)\n")

        let restored = directory.file("restored")
        try FileManager.default.createDirectory(atPath: restored, withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: file, toPath: restored + "/alertd.sqlite3")
        #expect(try await image(restored).alerts == [fullAlert(1)])
    }

    @Test func aDirWithoutAJournalOrAMissingFileIsAnError() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let missing = try ChildProcess(Self.alertd, ["backup", "--data-dir", directory.path, directory.file("out")])
        #expect(await missing.wait(timeout: TestTime.bound(20)) == 1)
        #expect(missing.standardError.contains("there is no alertd journal in \(directory.path)"))

        let usage = try ChildProcess(Self.alertd, ["backup", "--data-dir", directory.path])
        #expect(await usage.wait(timeout: TestTime.bound(20)) == 64)
        #expect(usage.standardError.contains("usage: alertd backup --data-dir DIR FILE"))
    }
}
