@testable import AlertCore
import HTTPTestSupport
import Testing

@Suite("Dismissal and expiry")
struct DismissAndExpiryTests {
    @Test("dismiss resolves as the cancel button with each field's text")
    func dismiss() async throws {
        let store = AlertStore()
        let alert = try await store.create(AlertDraft(
            title: "T", buttons: [ButtonSpec(title: "Go"), ButtonSpec(title: "Stop", style: .cancel)],
            fields: [FieldSpec(text: "preset")]
        ))
        let result = try await store.dismiss(alert.id)
        #expect(result.buttonIndex == 0)
        #expect(result.buttonTitle == "Stop")
        #expect(!result.ok)
        #expect(result.values == ["preset"])
        #expect(result.resolution == .dismissed)
        let again = await storeError { () async throws(AlertStoreError) in try await store.dismiss(alert.id) }
        #expect(again?.kind == .alreadyResolved)
        #expect(again?.result == result)
    }

    @Test("dismissing a one-button alert resolves as that button")
    func dismissSingle() async throws {
        let store = AlertStore()
        let alert = try await store.create(AlertDraft(message: "note"))
        let result = try await store.dismiss(alert.id)
        #expect(result.buttonTitle == "OK")
        #expect(result.resolution == .dismissed)
    }

    @Test("dismissing an unknown id is notFound")
    func dismissUnknown() async {
        let error = await storeError { () async throws(AlertStoreError) in
            try await AlertStore().dismiss(AlertID(rawValue: "x"))
        }
        #expect(error?.kind == .notFound)
    }

    @Test("a 0.2 s timeout resolves as the cancel button with resolution expired, on time")
    func expiry() async throws {
        let store = AlertStore()
        let start = ContinuousClock.now
        let wait = 60.0
        let alert = try await store.create(AlertDraft(title: "T", buttons: plain("Cancel", "OK"), timeout: 0.2))
        let waited = try await store.waitForResolution(of: alert.id, timeout: .seconds(wait))
        let elapsed = seconds(since: start)
        let result = try #require(waited.result)
        #expect(result.resolution == .expired)
        #expect(result.buttonTitle == "Cancel")
        #expect(!result.ok)
        #expect(elapsed >= 0.19)
        #expect(elapsed < TestTime.sooner(than: wait), "woken by the expiry, not at the end of the wait")
        // The timer's own lateness: resolvedAt is stamped when the timer fires.
        let expiresAt = try #require(alert.expiresAt)
        let lateness = result.resolvedAt.timeIntervalSince(expiresAt)
        #expect(lateness > -0.005 && lateness < TestTime.sooner(than: wait), "expired \(lateness) s after expiresAt")
        #expect(await store.index == 2)
        let late = await storeError { () async throws(AlertStoreError) in
            try await store.answer(alert.id, with: AnswerDraft(choice: .index(1)))
        }
        #expect(late?.kind == .alreadyResolved)
        #expect(late?.result?.resolution == .expired)
    }

    @Test("an alert answered before its timeout does not expire later")
    func answeredBeforeExpiry() async throws {
        let store = AlertStore(configuration: .init(retention: .seconds(3600)))
        let alert = try await store.create(AlertDraft(title: "T", timeout: 0.05))
        _ = try await store.answer(alert.id, with: AnswerDraft(choice: .index(0)))
        // Drive the deadline heap past the expiry by hand rather than sleep until the timer ran.
        await store.runDueDeadlines(now: .now + .seconds(1))
        #expect(try await store.alert(alert.id).result?.resolution == .answered)
        #expect(await store.index == 2)
    }

    @Test("expiries fire in deadline order even when inserted out of order")
    func expiryOrder() async throws {
        let store = AlertStore(configuration: .init(retention: .seconds(86400)))  // kept past the hand-run hours
        let late = try await store.create(AlertDraft(title: "late", timeout: 7200))
        let early = try await store.create(AlertDraft(title: "early", timeout: 3600))
        // Drive the deadline heap by hand, between the two deadlines and then past both: the real timer sleeps an
        // hour, and a test that slept for its deadlines would depend on how late a loaded machine runs it.
        await store.runDueDeadlines(now: .now + .seconds(5400))
        #expect(try await store.alert(early.id).result?.resolution == .expired)
        #expect(try await store.alert(late.id).state == .pending)
        await store.runDueDeadlines(now: .now + .seconds(9000))
        #expect(try await store.alert(late.id).result?.resolution == .expired)
    }
}
