@testable import AlertCore
import HTTPTestSupport
import Testing

/// `whenResolved`, `whenChanged` and `cancelWaiter`: waiters that are a closure, not a suspended task.
///
/// A wake is an effect of the store's turn: it runs once the turn is over, on the thread that held the store, and an
/// `await` of the call that woke it may resume on another thread first. So the tests wait, bounded, for the outcomes
/// they expect (`Outcomes.wait(for:)`); only `inline` runs them before it returns.
@Suite("Callback waiters")
struct CallbackWaiterTests {
    @Test("every callback waiter is woken once with the resolved alert when it is answered")
    func wokenByAnswer() async throws {
        let store = AlertStore()
        let alert = try await store.create(draft(plain("No", "Yes")))
        let outcomes = Outcomes()
        for _ in 0..<5 {
            _ = try await store.whenResolved(alert.id, timeout: .seconds(60), outcomes.record)
        }
        #expect(await store.statistics.waiters == 5)
        #expect(outcomes.all.isEmpty)
        let result = try await store.answer(alert.id, with: AnswerDraft(choice: .index(1)))
        try await outcomes.wait(for: 5)
        #expect(outcomes.alerts.map(\.result) == Array(repeating: result, count: 5))
        #expect(await store.statistics.waiters == 0)
    }

    @Test("a resolved alert or a zero timeout calls back at once; an unknown id throws and never calls back")
    func immediate() async throws {
        let store = AlertStore()
        let alert = try await store.create(draft())
        let outcomes = Outcomes()
        _ = try await store.whenResolved(alert.id, timeout: .zero, outcomes.record)
        try await outcomes.wait(for: 1)
        #expect(outcomes.alerts.map(\.state) == [.pending])
        _ = try await store.dismiss(alert.id)
        let ticket = try await store.whenResolved(alert.id, timeout: .seconds(60), outcomes.record)
        try await outcomes.wait(for: 2)
        #expect(outcomes.alerts.map(\.state) == [.pending, .resolved])
        await store.cancelWaiter(ticket)
        #expect(outcomes.all.count == 2, "cancelling a wait answered at once does nothing")
        let error = await storeError { () async throws(AlertStoreError) in
            try await store.whenResolved(AlertID(rawValue: "x"), timeout: .seconds(1), outcomes.record)
        }
        #expect(error?.kind == .notFound)
        #expect(outcomes.all.count == 2)
    }

    @Test("a callback waiter times out with the alert still pending, through the one timer")
    func timeout() async throws {
        let store = AlertStore()
        let alert = try await store.create(draft())
        let outcomes = Outcomes()
        let start = ContinuousClock.now
        _ = try await store.whenResolved(alert.id, timeout: .milliseconds(100), outcomes.record)
        #expect(await TestTime.until { !outcomes.all.isEmpty }, "never timed out")
        #expect(outcomes.alerts.map(\.state) == [.pending])
        #expect(seconds(since: start) >= 0.09)
        #expect(await store.statistics.waiters == 0)
    }

    @Test("cancelWaiter wakes the waiter at once with things as they are, once; other waiters keep waiting")
    func cancel() async throws {
        let store = AlertStore()
        let alert = try await store.create(draft())
        let cancelled = Outcomes()
        let other = Outcomes()
        let ticket = try await store.whenResolved(alert.id, timeout: .seconds(60), cancelled.record)
        _ = try await store.whenResolved(alert.id, timeout: .seconds(60), other.record)
        await store.cancelWaiter(ticket)
        try await cancelled.wait(for: 1)
        #expect(cancelled.alerts.map(\.state) == [.pending])
        await store.cancelWaiter(ticket)
        #expect(cancelled.all.count == 1)
        #expect(await store.statistics.waiters == 1)
        _ = try await store.dismiss(alert.id)
        try await other.wait(for: 1)
        #expect(other.alerts.map(\.state) == [.resolved])
        #expect(cancelled.all.count == 1)
    }

    @Test("a change callback wakes when the index passes its value, or at once when it has")
    func change() async throws {
        let store = AlertStore()
        let outcomes = Outcomes()
        _ = try await store.whenChanged(after: 0, timeout: .seconds(60), outcomes.record)
        #expect(outcomes.all.isEmpty)
        _ = try await store.create(draft())
        try await outcomes.wait(for: 1)
        #expect(outcomes.indexes == [1])
        _ = try await store.whenChanged(after: 0, timeout: .seconds(60), outcomes.record)
        try await outcomes.wait(for: 2)
        #expect(outcomes.indexes == [1, 1])
        let ticket = try await store.whenChanged(after: 1, timeout: .seconds(60), outcomes.record)
        await store.cancelWaiter(ticket)
        try await outcomes.wait(for: 3)
        #expect(outcomes.indexes == [1, 1, 1])
    }

    @Test("shutdown wakes callback waiters with shuttingDown; later ones that would wait throw")
    func shutdown() async throws {
        let store = AlertStore()
        let alert = try await store.create(draft())
        let outcomes = Outcomes()
        _ = try await store.whenResolved(alert.id, timeout: .seconds(60), outcomes.record)
        _ = try await store.whenChanged(after: 1, timeout: .seconds(60), outcomes.record)
        await store.shutdown()
        try await outcomes.wait(for: 2)
        #expect(outcomes.shutdowns == 2)
        let error = await storeError { () async throws(AlertStoreError) in
            try await store.whenResolved(alert.id, timeout: .seconds(1), outcomes.record)
        }
        #expect(error?.kind == .shuttingDown)
        _ = try await store.whenResolved(alert.id, timeout: .zero, outcomes.record)
        try await outcomes.wait(for: 3)
        #expect(outcomes.alerts.count == 1, "a wait that need not wait still answers")
    }

    @Test("registration runs inline on an idle store, from a plain thread")
    func inline() async throws {
        let store = AlertStore()
        let alert = try await store.create(draft())
        let outcomes = Outcomes()
        let ticket = try store.inlineOrBusy { store throws(AlertStoreError) in
            try store.whenResolved(alert.id, timeout: .seconds(60), outcomes.record)
        }
        #expect(ticket != nil)
        _ = store.inline { store in store.cancelWaiter(ticket!) }
        #expect(outcomes.alerts.map(\.state) == [.pending])
    }

    @Test("the async waits still work on top of callbacks, cancellation included")
    func asyncWaitsStillCancel() async throws {
        let store = AlertStore()
        let alert = try await store.create(draft())
        let wait = Task { try await store.waitForResolution(of: alert.id, timeout: .seconds(60)) }
        #expect(await TestTime.until { await store.statistics.waiters == 1 }, "the task never waited")
        wait.cancel()
        #expect(try await wait.value.state == .pending)
        #expect(await store.statistics.waiters == 0)
    }
}

/// Collects the outcomes a callback waiter receives, in order.
private final class Outcomes: Sendable {
    private let received = Delivered<WaitOutcome>()

    var all: [WaitOutcome] { received.all }

    /// Waits, bounded, until `count` outcomes arrived.
    func wait(for count: Int) async throws {
        try await received.wait(for: count)
    }

    var alerts: [Alert] {
        all.compactMap { if case .alert(let alert) = $0 { alert } else { nil } }
    }

    var indexes: [UInt64] {
        all.compactMap { if case .index(let index) = $0 { index } else { nil } }
    }

    var shutdowns: Int {
        all.filter { if case .shuttingDown = $0 { true } else { false } }.count
    }

    /// A wake closure.
    var record: @Sendable (WaitOutcome) -> Void {
        { outcome in self.received.add(outcome) }
    }
}
