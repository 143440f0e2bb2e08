@testable import AlertCore
import HTTPTestSupport
import Testing

@Suite("Waiting")
struct WaitingTests {
    /// Waits until the store counts `count` suspended waiters.
    func waitForWaiters(_ store: AlertStore, count: Int) async throws {
        #expect(await TestTime.until { await store.statistics.waiters == count }, "never \(count) waiters")
    }

    @Test("every waiter wakes with the resolved alert when it is answered")
    func wokenByAnswer() async throws {
        let store = AlertStore()
        let alert = try await store.create(AlertDraft(title: "T", buttons: plain("No", "Yes")))
        let waits = (0..<5).map { _ in
            Task { try await store.waitForResolution(of: alert.id, timeout: .seconds(60)) }
        }
        try await waitForWaiters(store, count: 5)
        let result = try await store.answer(alert.id, with: AnswerDraft(choice: .index(1)))
        for wait in waits {
            let woken = try await wait.value
            #expect(woken.result == result)
        }
        #expect(await store.statistics.waiters == 0)
    }

    @Test("a waiter that times out gets the still pending alert")
    func waiterTimeout() async throws {
        let store = AlertStore()
        let alert = try await store.create(draft())
        let start = ContinuousClock.now
        let waited = try await store.waitForResolution(of: alert.id, timeout: .milliseconds(100))
        #expect(waited.state == .pending)
        #expect(seconds(since: start) >= 0.09)
        #expect(seconds(since: start) < TestTime.bound(10), "it timed out, on a machine however loaded")
        #expect(await store.statistics.waiters == 0)
    }

    @Test("waiting returns at once for a resolved alert or a zero timeout; unknown ids are notFound")
    func immediate() async throws {
        let store = AlertStore()
        let alert = try await store.create(draft())
        #expect(try await store.waitForResolution(of: alert.id, timeout: .zero).state == .pending)
        _ = try await store.dismiss(alert.id)
        #expect(try await store.waitForResolution(of: alert.id, timeout: .seconds(60)).state == .resolved)
        let error = await storeError { () async throws(AlertStoreError) in
            try await store.waitForResolution(of: AlertID(rawValue: "x"), timeout: .seconds(1))
        }
        #expect(error?.kind == .notFound)
    }

    @Test("a change waiter wakes when the index passes its value; create and resolve bump the index")
    func changeWaiter() async throws {
        let store = AlertStore()
        #expect(await store.index == 0)
        let wait = Task { try await store.waitForChange(after: 0, timeout: .seconds(60)) }
        let ahead = Task { try await store.waitForChange(after: 1, timeout: .seconds(60)) }
        try await waitForWaiters(store, count: 2)
        let alert = try await store.create(draft())
        #expect(try await wait.value == 1)
        #expect(await store.statistics.waiters == 1)
        _ = try await store.dismiss(alert.id)
        #expect(try await ahead.value == 2)
        #expect(try await store.waitForChange(after: 1, timeout: .seconds(60)) == 2)
    }

    @Test("a change waiter times out with the unchanged index")
    func changeTimeout() async throws {
        let store = AlertStore()
        #expect(try await store.waitForChange(after: 0, timeout: .milliseconds(50)) == 0)
        #expect(try await store.waitForChange(after: 0, timeout: .zero) == 0)
    }

    @Test("shutdown wakes every waiter with shuttingDown; later waits throw at once; reads and writes go on")
    func shutdown() async throws {
        let store = AlertStore()
        let alert = try await store.create(draft())
        let resolution = Task { try await store.waitForResolution(of: alert.id, timeout: .seconds(30)) }
        let change = Task { try await store.waitForChange(after: 1, timeout: .seconds(30)) }
        try await waitForWaiters(store, count: 2)
        await store.shutdown()
        await store.shutdown()
        #expect((await resolution.result.failure as? AlertStoreError)?.kind == .shuttingDown)
        #expect((await change.result.failure as? AlertStoreError)?.kind == .shuttingDown)
        #expect(await store.statistics.waiters == 0)
        let later = await storeError { () async throws(AlertStoreError) in
            try await store.waitForResolution(of: alert.id, timeout: .seconds(30))
        }
        #expect(later?.kind == .shuttingDown)
        let laterChange = await storeError { () async throws(AlertStoreError) in
            try await store.waitForChange(after: 1, timeout: .seconds(30))
        }
        #expect(laterChange?.kind == .shuttingDown)
        let second = try await store.create(draft())
        _ = try await store.answer(second.id, with: AnswerDraft(choice: .index(0)))
        #expect(try await store.waitForResolution(of: second.id, timeout: .seconds(1)).state == .resolved)
    }

    @Test("cancelling a waiting task returns the alert as it is, at once")
    func cancellation() async throws {
        let store = AlertStore()
        let alert = try await store.create(draft())
        let start = ContinuousClock.now
        let timeout = 60.0
        let wait = Task { try await store.waitForResolution(of: alert.id, timeout: .seconds(timeout)) }
        try await waitForWaiters(store, count: 1)
        wait.cancel()
        #expect(try await wait.value.state == .pending)
        #expect(seconds(since: start) < TestTime.sooner(than: timeout), "a cancelled wait returns before its timeout")
        #expect(await store.statistics.waiters == 0)
    }

    @Test("many waiters time out together through the one timer")
    func manyWaiters() async throws {
        let store = AlertStore()
        let alert = try await store.create(draft())
        try await withThrowingTaskGroup(of: AlertState.self) { group in
            for _ in 0..<2000 {
                group.addTask { try await store.waitForResolution(of: alert.id, timeout: .milliseconds(100)).state }
            }
            for try await state in group {
                #expect(state == .pending)
            }
        }
        #expect(await store.statistics.waiters == 0)
    }
}

extension Result {
    /// The error, or `nil` on success.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
