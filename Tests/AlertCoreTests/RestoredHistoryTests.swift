@testable import AlertCore
import HTTPTestSupport
import Testing

/// A store restored from a backup (`StoreImage.historyFloor`, no events) refuses every cursor from before the restore,
/// also once new events pass it, and accepts the indexes it hands out itself.
@Suite("A restored store's history floor")
struct RestoredHistoryTests {
    static let floor: UInt64 = 1 << 32 + 7

    func restored() async -> (AlertStore, HeldJournal) {
        let journal = HeldJournal()
        let store = AlertStore(journal: journal, image: {
            var image = StoreImage(epoch: "restored", changeIndex: Self.floor, nextSequence: 10)
            image.historyFloor = Self.floor
            return image
        }())
        await store.resume()
        return (store, journal)
    }

    @Test("an old cursor gets historyGone before and after new events; the store's own index is accepted")
    func oldCursorsAreGone() async throws {
        let (store, journal) = await restored()
        await #expect(throws: AlertStoreError.self) { try await store.events(after: 5) }
        #expect(try await store.events(after: Self.floor).events.isEmpty)

        _ = try await store.create(AlertDraft(title: "after the restore"))
        journal.commitAll()
        _ = await TestTime.until { (try? await store.events(after: Self.floor).events.count) == 1 }
        #expect(try await store.events(after: Self.floor).events.map(\.index) == [Self.floor + 1])
        await #expect(throws: AlertStoreError.self) { try await store.events(after: 5) }
        await #expect(throws: AlertStoreError.self) { try await store.events(after: Self.floor - 1) }
    }

    @Test("a producer's old cursor is gone; 0 (its list before its first event) and its own newest index are not")
    func producerCursors() async throws {
        let (store, journal) = await restored()
        await #expect(throws: AlertStoreError.self) { try await store.checkCursor(5, visibleTo: "p") }
        try await store.checkCursor(0, visibleTo: "p")

        let alert = try await store.create(AlertDraft(title: "mine"), owner: "p")
        journal.commitAll()
        let newest = await store.index(visibleTo: "p")
        #expect(newest == Self.floor + 1, "the producer's index is its event's: \(alert.sequence)")
        try await store.checkCursor(newest, visibleTo: "p")
        await #expect(throws: AlertStoreError.self) { try await store.checkCursor(5, visibleTo: "p") }
        // The index its list showed before its first event stays a cursor it can follow, and gives that event.
        try await store.checkCursor(0, visibleTo: "p")
        #expect(try await store.events(after: 0, owner: "p").events.map(\.index) == [newest])
    }
}
