import AlertCore
import AlertJournal
import Foundation
import Testing

/// A commit that fails (here: the database reaches its page cap, as on a full disk) fails its batch and every
/// later append, and loses nothing committed before it.
@Suite(.timeLimit(.minutes(1)))
struct FailureTests {
    @Test func aFullDiskFailsTheBatchAndEveryLaterAppend() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (journal, _) = try await open(directory.path, maxPageCount: 12)
        let kept = plainAlert(1)
        #expect(await journal.commit([.created(kept, event: 1, idempotency: nil)]) == nil)

        let big = String(repeating: "a large message ", count: 300)
        let batch = (UInt64(2)...30).map { JournalRecord.created(plainAlert($0, message: big), event: $0, idempotency: nil) }
        let failure = await journal.commit(batch)
        #expect(failure?.reason.contains("full") == true)
        #expect(journal.failure == failure)
        #expect(journal.statistics.failure == failure)

        // Later appends fail without writing, even small ones that would fit.
        #expect(await journal.commit([.created(plainAlert(31), event: 31, idempotency: nil)]) == failure)
        #expect(await journal.commit([.dropped(sequence: 1)]) == failure)
        journal.close()

        let restored = try await image(directory.path)
        #expect(restored.alerts == [kept])
        #expect(restored.changeIndex == 1)
        #expect(restored.nextSequence == 2)
    }

    @Test func everyAppendQueuedBehindAFailedBatchGetsTheFailure() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (journal, _) = try await open(directory.path, maxPageCount: 12)
        defer { journal.close() }
        let big = String(repeating: "x", count: 5000)
        let failures = await withTaskGroup(of: JournalFailure?.self) { group in
            for sequence in UInt64(1)...40 {
                group.addTask {
                    await journal.commit([.created(plainAlert(sequence, message: big), event: sequence, idempotency: nil)])
                }
            }
            return await group.reduce(into: [JournalFailure?]()) { $0.append($1) }
        }
        // Some commits may succeed before the file is full; from the first failure on, all fail alike.
        let failed = failures.compactMap { $0 }
        #expect(!failed.isEmpty)
        #expect(Set(failed.map(\.reason)).count == 1)
    }
}
