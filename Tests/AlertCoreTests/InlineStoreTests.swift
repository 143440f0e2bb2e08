@testable import AlertCore
import Foundation
import HTTPTestSupport
import Synchronization
import Testing

/// `AlertStore.inline(_:)`: store work run on the calling thread, still one at a time with the actor's jobs.
@Suite("Inline store work")
struct InlineStoreTests {
    @Test("an idle store runs the work at once and its rules apply as in the actor")
    func runsWhenIdle() async throws {
        let store = AlertStore()
        let created = try store.inlineOrBusy { store throws(AlertStoreError) in try store.create(draft(title: "now")) }
        let alert = try #require(created)
        #expect(await store.list(ListQuery()).alerts.map(\.id) == [alert.id])
        #expect(throws: AlertStoreError.self) {
            _ = try store.inlineOrBusy { store throws(AlertStoreError) in try store.create(AlertDraft()) }
        }
    }

    @Test("inline work and actor jobs from many threads never overlap, and none is lost")
    func exclusion() async throws {
        let store = AlertStore(configuration: .init(maxPending: 100_000))
        let threads = 4
        let perThread = 500
        let inlineRuns = Counter()
        await withTaskGroup(of: Void.self) { group in
            // Actor jobs: creates through the executor's queue.
            for _ in 0..<threads {
                group.addTask {
                    for _ in 0..<perThread { _ = try? await store.create(draft(title: "job")) }
                }
            }
            // Inline work from plain threads; a busy store answers nil and the caller awaits instead.
            for _ in 0..<threads {
                group.addTask {
                    await withCheckedContinuation { continuation in
                        Thread {
                            for _ in 0..<perThread {
                                let done = try? store.inlineOrBusy { store throws(AlertStoreError) in
                                    try store.create(draft(title: "inline"))
                                }
                                if done != nil { inlineRuns.add() }
                            }
                            continuation.resume()
                        }.start()
                    }
                }
            }
        }
        let statistics = await store.statistics
        #expect(statistics.pending == threads * perThread + inlineRuns.value)
        #expect(Int(statistics.index) == statistics.pending, "every create bumped the index exactly once")
        // Whether any inline call found the store idle during the storm depends on scheduling; once it is
        // over, the store is idle and inline work runs. Over is a moment after the last job returned: the thread
        // that ran `statistics` gives the executor back only after it resumed this task, which may run first
        // (under ThreadSanitizer it often did). A store that stayed busy would fail here.
        let ranAfter = try await TestTime.until(every: .milliseconds(1)) {
            try store.inlineOrBusy { store throws(AlertStoreError) in try store.create(draft(title: "after")) } != nil
        }
        #expect(ranAfter, "the store stayed busy after the storm")
    }

    @Test("waiters woken by inline work wake on the store, not on the caller's thread")
    func wakesWaiters() async throws {
        let store = AlertStore()
        let alert = try await store.create(draft([.init(title: "No"), .init(title: "Yes")]))
        let waiter = Task { try await store.waitForResolution(of: alert.id, timeout: .seconds(60)) }
        #expect(await TestTime.until { await store.statistics.waiters == 1 }, "the waiter never waited")
        let answered = try store.inlineOrBusy { store throws(AlertStoreError) in
            try store.answer(alert.id, with: AnswerDraft(choice: .title("Yes")))
        }
        #expect(answered?.buttonTitle == "Yes")
        #expect(try await waiter.value.result?.buttonTitle == "Yes")
    }

    @Test("inline work that asks for inline work again on its own thread is told at once that the store is busy")
    func nested() {
        let store = AlertStore()
        let started = ContinuousClock.now
        let inner = store.inline { _ in store.inline { _ in 1 } }
        #expect(inner == .some(nil))
        #expect(ContinuousClock.now - started < TestTime.bound(.seconds(1)), "not a wait for its own work")
    }

    @Test("while an actor job runs, inline work is refused at once instead of waiting for the job")
    func refusedWhileJobRuns() async throws {
        let store = AlertStore()
        let running = Counter()
        let released = Counter()
        let hold = 60.0
        // The job blocks the thread that runs it: a thread of its own, never one of the cooperative pool.
        let executor = ThreadExecutor()
        defer { executor.stop() }
        let job = Task(executorPreference: executor) {
            await store.run { @Sendable _ in
                running.add()
                let end = ContinuousClock.now + .seconds(hold)  // holds the store until released, at most `hold`
                while released.value == 0, ContinuousClock.now < end { usleep(1000) }
            }
        }
        #expect(await TestTime.until { running.value == 1 }, "the job never started")
        let started = ContinuousClock.now
        let result = store.inline { _ in 1 }
        let waited = (ContinuousClock.now - started) / .seconds(1)
        released.add()
        await job.value
        #expect(result == nil, "the store is busy with a job")
        #expect(waited < TestTime.sooner(than: hold), "enter() gave up after \(waited) s, not at once")
    }
}

/// A thread-safe count.
private final class Counter: Sendable {
    private let count = Atomic(0)
    func add() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}
