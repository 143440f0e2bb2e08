import AlertCore
import AlertJournal
import Foundation
import Testing

/// The journal and its backups hold secure values and callback credentials: only their owner may read them, even in a
/// directory others can read (one the operator made, or where backups go).
@Suite(.timeLimit(.minutes(1)))
struct FileModeTests {
    @Test func theJournalItsWALAndABackupAreReadableByTheirOwnerOnly() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.file("data")
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o755])
        let (journal, _) = try await open(data)
        #expect(await journal.commit([.created(fullAlert(1), event: 1, idempotency: nil)]) == nil)
        for name in ["alertd.sqlite3", "alertd.sqlite3-wal", "alertd.sqlite3-shm"] {
            #expect(try mode(data + "/" + name) == 0o600, "\(name)")
        }
        let backup = directory.file("backup.sqlite3")
        try SQLiteJournal.backup(directory: data, to: backup)
        #expect(try mode(backup) == 0o600)
        journal.close()
    }

    private func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require(attributes[.posixPermissions] as? Int) & 0o777
    }
}
