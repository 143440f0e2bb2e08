@testable import AlertCore
import Foundation
import HTTPTestSupport
import Locking
import Testing

/// A journal the test commits by hand: appends wait until `commitAll()` or `fail(_:)`.
final class HeldJournal: StoreJournal {
    private let state = Lock<(batches: [([JournalRecord], @Sendable (JournalFailure?) -> Void)], failure: JournalFailure?)>(
        ([], nil))

    func append(_ records: [JournalRecord], committed: @escaping @Sendable (JournalFailure?) -> Void) {
        let failed = state.withLock { state -> JournalFailure? in
            if let failure = state.failure { return failure }
            state.batches.append((records, committed))
            return nil
        }
        if let failed { committed(failed) }
    }

    /// The records appended and not yet committed, oldest first.
    var held: [JournalRecord] { state.withLock { $0.batches.flatMap(\.0) } }

    /// Commits every held batch, in order.
    func commitAll() {
        let batches = state.withLock { state in
            defer { state.batches = [] }
            return state.batches
        }
        for (_, committed) in batches { committed(nil) }
    }

    /// Fails every held batch and every later one.
    func fail(_ reason: String) {
        let failure = JournalFailure(reason: reason)
        let batches = state.withLock { state in
            state.failure = failure
            defer { state.batches = [] }
            return state.batches
        }
        for (_, committed) in batches { committed(failure) }
    }
}

/// Collects what a callback delivered, for a test to wait on.
final class Delivered<T: Sendable>: Sendable {
    private let values = Lock<[T]>([])
    func add(_ value: T) { values.withLock { $0.append(value) } }
    var all: [T] { values.withLock { $0 } }

    /// Waits, bounded, until `count` values arrived.
    func wait(for count: Int) async throws {
        #expect(await TestTime.until(every: .milliseconds(1)) { all.count >= count }, "\(all.count) of \(count)")
    }
}

@Suite("Nothing is shown before the journal commits it")
struct JournalFenceTests {
    func durableStore(_ journal: HeldJournal, image: StoreImage = StoreImage(epoch: "e1")) -> AlertStore {
        AlertStore(journal: journal, image: image)
    }

    @Test("a create is answered only once its turn commits, and its record names the event")
    func createWaitsForCommit() async throws {
        let journal = HeldJournal()
        let store = durableStore(journal)
        let answered = Delivered<Bool>()
        store.write(.create(try prepared("T"), owner: nil, idempotencyKey: nil)) { outcome in
            answered.add((try? outcome.get()) != nil)
        }
        #expect(answered.all.isEmpty)
        guard case .created(let alert, let event, nil)? = journal.held.first else {
            Issue.record("no created record: \(journal.held)")
            return
        }
        #expect(event == 1)
        #expect(try await store.events(after: 0).events.isEmpty, "the event is not shown before the commit")
        journal.commitAll()
        try await answered.wait(for: 1)
        #expect(answered.all == [true])
        #expect(try await store.events(after: 0).events.map(\.alert.id) == [alert.id])
    }

    @Test("a waiter wakes only after the answer commits; a 409 waits for the winner's commit")
    func wakeAfterCommit() async throws {
        let journal = HeldJournal()
        let store = durableStore(journal)
        let created = Delivered<Alert>()
        store.write(.create(try prepared("T"), owner: nil, idempotencyKey: nil)) { outcome in
            if let alert = try? outcome.get().alert { created.add(alert) }
        }
        journal.commitAll()
        try await created.wait(for: 1)
        let alert = created.all[0]
        let woken = Delivered<WaitOutcome>()
        _ = try await store.whenResolved(alert.id, timeout: .seconds(30)) { woken.add($0) }
        let results = Delivered<Result<AlertResult, AlertStoreError>>()
        for _ in 0..<2 {
            store.write(.answer(alert.id, with: AnswerDraft(choice: .index(0)), by: nil)) { outcome in
                results.add(outcome.map { $0.alert.result! })
            }
        }
        // Both answers have run once the store stops holding the journal's turn for them: the winner's record is
        // held, and the loser's turn (no record) waits behind it.
        _ = await TestTime.until(every: .milliseconds(1)) {
            journal.held.contains { if case .resolved = $0 { true } else { false } }
        }
        #expect(await store.statistics.resolutions[.answered] == 1)
        #expect(woken.all.isEmpty)
        #expect(results.all.isEmpty, "neither the winner nor the 409 is answered before the commit")
        journal.commitAll()
        try await woken.wait(for: 1)
        try await results.wait(for: 2)
        let outcomes = results.all
        #expect(outcomes.filter { (try? $0.get()) != nil }.count == 1)
        #expect(outcomes.contains { if case .failure(let error) = $0 { error.kind == .alreadyResolved } else { false } })
    }

    @Test("a failed commit answers 'unavailable', and the store then refuses writes")
    func failureStopsWrites() async throws {
        let journal = HeldJournal()
        let store = durableStore(journal)
        let failures = Delivered<AlertStoreError?>()
        store.write(.create(try prepared("T"), owner: nil, idempotencyKey: nil)) { outcome in
            if case .failure(let error) = outcome { failures.add(error) } else { failures.add(nil) }
        }
        journal.fail("disk full")
        try await failures.wait(for: 1)
        #expect(failures.all.first??.kind == .unavailable)
        #expect(failures.all.first??.message.contains("disk full") == true)
        #expect(store.writeFailure?.reason == "disk full")
        let error = await storeError { () async throws(AlertStoreError) in try await store.create(AlertDraft(title: "U")) }
        #expect(error?.kind == .unavailable)
    }

    @Test("a restore keeps ids, order, keys and events; an overdue alert expires at start as a normal change")
    func restore() async throws {
        let now = Date()
        func alert(_ sequence: UInt64, _ title: String, expiresAt: Date? = nil) -> Alert {
            Alert(id: AlertID(rawValue: "id\(sequence)"), sequence: sequence, title: title, message: "", style: .alert,
                  tag: 0, presenter: "root", animated: true,
                  buttons: [AlertButton(index: 0, title: "OK", style: .default)], fields: [], createdAt: now,
                  expiresAt: expiresAt)
        }
        let first = alert(3, "first")
        let overdue = alert(5, "overdue", expiresAt: now.addingTimeInterval(-10))
        let draft = AlertDraft(title: "first")
        let image = StoreImage(
            epoch: "e2", boxes: [first, overdue].map(AlertBox.init),
            events: [AlertEvent(index: 7, kind: .created, alert: first), AlertEvent(index: 8, kind: .created, alert: overdue)],
            changeIndex: 8, nextSequence: 6,
            idempotency: [(IdempotencyRecord(owner: nil, key: "k", draft: draft), 3)])
        let journal = HeldJournal()
        let store = durableStore(journal, image: image)
        await store.resume()
        #expect(store.epoch == "e2")
        let replay = try await store.create(draft, idempotencyKey: "k")
        #expect(replay.replayed && replay.alert.id == first.id)
        // The overdue alert expires as soon as the timer runs: its record is event 9.
        _ = await TestTime.until { !journal.held.isEmpty }
        guard case .resolved(let expired, 9)? = journal.held.first else {
            Issue.record("no expiry record: \(journal.held)")
            return
        }
        #expect(expired.id == overdue.id && expired.result?.resolution == .expired)
        journal.commitAll()
        let events = try await store.events(after: 6).events
        #expect(events.map(\.index) == [7, 8, 9])
        let fresh = try await store.create(AlertDraft(title: "new"))
        #expect(fresh.sequence == 6)
        #expect(await store.list(ListQuery(state: .pending)).alerts.map(\.id) == [first.id, fresh.id])
    }
}
