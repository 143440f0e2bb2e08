@testable import AlertCore
import HTTPTestSupport
import Testing

@Suite("The deadline heap")
struct DeadlineTests {
    @Test("deadlines of alerts answered early are compacted away; the rest still fire")
    func staleDeadlinesCompacted() async throws {
        let store = AlertStore()
        var ids: [AlertID] = []
        for _ in 0..<3000 {
            ids.append(try await store.create(AlertDraft(title: "T", timeout: 600)).id)
        }
        let survivor = try await store.create(AlertDraft(title: "T", timeout: 0.1))
        #expect(await store.deadlines.count == 3001)
        for id in ids {
            _ = try await store.dismiss(id)
        }
        #expect(await store.deadlines.count < 3001 / 2)
        let expired = try await store.waitForResolution(of: survivor.id, timeout: .seconds(60))
        #expect(expired.result?.resolution == .expired)
    }

    @Test("waiters answered before their time-out leave no live deadline behind")
    func waiterDeadlines() async throws {
        let store = AlertStore()
        let alert = try await store.create(draft())
        let waits = (0..<50).map { _ in
            Task { try await store.waitForResolution(of: alert.id, timeout: .seconds(60)) }
        }
        #expect(await TestTime.until { await store.statistics.waiters == 50 }, "never 50 waiters")
        _ = try await store.dismiss(alert.id)
        for wait in waits {
            #expect(try await wait.value.state == .resolved)
        }
        await store.runDueDeadlines(now: .now + .seconds(120))
        // Only the resolved alert's retention deadline (an hour away) is left.
        #expect(await store.deadlines.elements.map(\.kind) == [.retention])
        #expect(await store.staleDeadlines == 0)
    }
}
