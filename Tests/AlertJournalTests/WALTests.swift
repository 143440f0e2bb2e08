import AlertCore
import AlertJournal
import Foundation
import Testing

/// The write-ahead log is checkpointed beside the commits and stays bounded; at a steady load (alerts created,
/// resolved and dropped) the database file stays bounded too.
@Suite(.timeLimit(.minutes(2)))
struct WALTests {
    @Test func theWALStaysBoundedOverManyBatchesAndIsEmptiedOnClose() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (journal, _) = try await open(directory.path, eventHistory: 100)
        let message = String(repeating: "m", count: 1000)
        var largestWAL: Int64 = 0
        var sequence: UInt64 = 0
        var index: UInt64 = 0
        for _ in 0..<200 {
            var records: [JournalRecord] = []
            for _ in 0..<50 {
                sequence += 1
                index += 1
                let alert = plainAlert(sequence, message: message)
                records.append(.created(alert, event: index, idempotency: nil))
                index += 1
                records.append(.resolved(resolved(alert, .answered, button: 0), event: index))
                records.append(.dropped(sequence: sequence))
            }
            #expect(await journal.commit(records) == nil)
            largestWAL = max(largestWAL, journal.statistics.walBytes)
        }
        // 10,000 alerts of over 1 KB, written twice each with their events: over 30 MB through the WAL.
        #expect(largestWAL > 0)
        #expect(largestWAL < 24 << 20)
        #expect(journal.statistics.checkpoints > 0)
        journal.close()

        let database = directory.file("alertd.sqlite3")
        let size = try FileManager.default.attributesOfItem(atPath: database)[.size] as? Int ?? .max
        #expect(size < 2 << 20)
        let wal = try? FileManager.default.attributesOfItem(atPath: database + "-wal")[.size] as? Int
        #expect((wal ?? 0) == 0)
        let restored = try await image(directory.path, eventHistory: 100)
        #expect(restored.alerts.isEmpty)
        #expect(restored.events.count == 100)
        #expect(restored.changeIndex == index)
    }
}
