@testable import AlertCore
import HTTPTestSupport
import Testing

@Suite("Retention and limits")
struct RetentionTests {
    @Test("at most maxResolved resolved alerts are kept; the oldest resolutions are dropped first")
    func retentionByCount() async throws {
        let store = AlertStore(configuration: .init(maxResolved: 2))
        var ids: [AlertID] = []
        for number in 0..<4 {
            ids.append(try await store.create(draft(title: "A\(number)")).id)
        }
        // Resolve in the order 2, 0, 3, 1: the first two resolutions (2 and 0) are dropped.
        for number in [2, 0, 3, 1] {
            _ = try await store.dismiss(ids[number])
        }
        for number in [2, 0] {
            let error = await storeError { () async throws(AlertStoreError) in try await store.alert(ids[number]) }
            #expect(error?.kind == .notFound)
        }
        #expect(try await store.alert(ids[3]).state == .resolved)
        #expect(try await store.alert(ids[1]).state == .resolved)
        let stats = await store.statistics
        #expect(stats.resolved == 2)
        #expect(stats.pending == 0)
        #expect(stats.index == 8)
    }

    @Test("resolved alerts are dropped in resolution order once their retention passes, without bumping the index")
    func retentionByTime() async throws {
        let store = AlertStore(configuration: .init(retention: .seconds(3600)))
        let first = try await store.create(draft())
        let second = try await store.create(draft())
        _ = try await store.dismiss(first.id)
        try await Task.sleep(for: .milliseconds(20))  // not ordering: the two resolutions at instants apart
        _ = try await store.dismiss(second.id)
        let firstResolved = try #require(await store.resolvedIndex.oldest).instant
        // Drive the deadline heap by hand: the real timer waits an hour, longer than any test run.
        await store.runDueDeadlines(now: firstResolved + .seconds(3600))
        let error = await storeError { () async throws(AlertStoreError) in try await store.alert(first.id) }
        #expect(error?.kind == .notFound)
        #expect(try await store.alert(second.id).state == .resolved)
        await store.runDueDeadlines(now: firstResolved + .seconds(7200))
        let stats = await store.statistics
        #expect(stats.resolved == 0)
        #expect(stats.index == 4)
    }

    @Test("the timer drops a resolved alert after a short retention")
    func retentionTimer() async throws {
        let store = AlertStore(configuration: .init(retention: .milliseconds(200)))
        let alert = try await store.create(draft())
        // Before the dismissal: taken after it, a test task resumed late on a busy machine (the suite runs its
        // tests in parallel) counted less than the real retention and read ~150 ms.
        let start = ContinuousClock.now
        _ = try await store.dismiss(alert.id)
        #expect(try await store.alert(alert.id).state == .resolved)
        while await storeError({ () async throws(AlertStoreError) in try await store.alert(alert.id) }) == nil {
            try #require(seconds(since: start) < TestTime.bound(10), "retention never dropped the alert")
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(seconds(since: start) >= 0.15)
        #expect(await store.statistics.resolved == 0)
    }

    @Test("beyond maxPending pending alerts, create throws tooManyPending; resolving frees a place")
    func pendingCap() async throws {
        let store = AlertStore(configuration: .init(maxPending: 3))
        var ids: [AlertID] = []
        for _ in 0..<3 {
            ids.append(try await store.create(draft()).id)
        }
        let error = try #require(await createError(draft(), in: store))
        #expect(error.kind == .tooManyPending)
        #expect(await store.index == 3)
        _ = try await store.dismiss(ids[0])
        _ = try await store.create(draft())
        #expect(await store.statistics.pending == 3)
    }

    @Test("an invalid draft is invalid even when the pending cap is reached")
    func invalidBeforeCap() async throws {
        let store = AlertStore(configuration: .init(maxPending: 0))
        #expect(await createError(AlertDraft(), in: store)?.kind == .invalid)
        #expect(await createError(draft(), in: store)?.kind == .tooManyPending)
    }
}
