import AlertCore
import Testing

/// The store's executor outlives the work it runs, even when that work drops the last reference to the store.
@Suite("Store lifetime")
struct StoreLifetimeTests {
    /// Found by `make fuzz`: a task on the global executor released the store right after its last call, while the
    /// thread that had run the call was still draining the store's executor, which the store's release freed.
    /// AddressSanitizer (`make asan`) reported a heap-use-after-free in `StoreExecutor.drain()` within a few rounds.
    @Test("a store released right after its last call is never used after it is freed")
    func releasedAfterLastCall() async throws {
        for _ in 0..<1000 {
            let store = AlertStore()
            let alert = try await store.create(AlertDraft(message: "released"))
            _ = try await store.dismiss(alert.id)
            await store.shutdown()
        }
    }
}
