import AlertCore
import AlertJournal
import Foundation
import Testing

/// Appends from many threads at once commit in fewer transactions than appends, and every `committed` is
/// called once, in the order of the appends.
@Suite(.timeLimit(.minutes(1)))
struct GroupCommitTests {
    @Test func concurrentAppendsShareTransactionsAndCommitInOrder() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (journal, _) = try await open(directory.path)
        defer { journal.close() }
        let observed = Shared((commits: 0, appends: 0, records: 0))
        journal.observeCommits { commit in
            observed.update { $0 = ($0.commits + 1, $0.appends + commit.appends, $0.records + commit.records) }
        }
        let producers = 8
        let perProducer = 250
        // The counter and the append share a lock, so the numbers are the order in which appends were queued.
        let next = Shared(UInt64(0))
        let calls = Shared([UInt64]())
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<producers {
                group.addTask {
                    for _ in 0..<perProducer {
                        next.update { number in
                            number += 1
                            let mine = number
                            journal.append([.created(plainAlert(mine), event: mine, idempotency: nil)]) { failure in
                                #expect(failure == nil)
                                calls.update { $0.append(mine) }
                            }
                        }
                    }
                }
            }
        }
        // `committed` runs in order, so once this one is called every earlier one has been.
        let total = UInt64(producers * perProducer)
        #expect(await journal.commit([.delivery(sequence: 1, WebhookDelivery(url: "https://x.example"))]) == nil)

        #expect(calls.value == Array(1...total))
        let statistics = journal.statistics
        #expect(statistics.appends == total + 1)
        #expect(statistics.records == total + 1)
        #expect(statistics.commits < statistics.appends)
        #expect(statistics.failure == nil)
        let seen = observed.value
        #expect(UInt64(seen.commits) == statistics.commits)
        #expect(UInt64(seen.appends) == total + 1)

        journal.close()
        let restored = try await image(directory.path)
        #expect(restored.alerts.map(\.sequence) == Array(1...total))
        #expect(restored.changeIndex == total)
        #expect(restored.nextSequence == total + 1)
    }

    @Test func closeCommitsWhatIsQueuedAndLaterAppendsFail() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (journal, _) = try await open(directory.path)
        let results = Shared([JournalFailure?]())
        for sequence in UInt64(1)...50 {
            journal.append([.created(plainAlert(sequence), event: sequence, idempotency: nil)]) { failure in
                results.update { $0.append(failure) }
            }
        }
        journal.close()
        #expect(results.value == Array(repeating: nil, count: 50))
        #expect(await journal.commit([.created(plainAlert(51), event: 51, idempotency: nil)])?.reason
            == "the journal is closed")
        #expect(try await image(directory.path).alerts.count == 50)
    }
}
