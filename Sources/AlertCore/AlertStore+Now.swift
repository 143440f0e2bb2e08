extension AlertStore {
    /// The actor's executor: `StoreExecutor`, so that `now(_:)` can run work inline.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    /// Runs `work` on the calling thread at once when the store is idle; `nil` when it is busy, and then the caller
    /// awaits `run(_:)` instead. For work that never waits: it holds every other store call off while it runs.
    ///
    /// - Parameters:
    ///   - work: synchronous store work, isolated to the store.
    /// - Returns: what `work` returned, or `nil` when the store was busy and `work` did not run.
    /// - Throws: what `work` throws.
    public nonisolated func now<T: Sendable, E: Error>(
        _ work: @Sendable (isolated AlertStore) throws(E) -> T
    ) throws(E) -> T? {
        guard executor.enter() else { return nil }
        defer { executor.leave() }
        return try assumeIsolated { store in
            defer { store.endTurn() }
            return Result { () throws(E) -> T in try work(store) }
        }.get()
    }

    /// Runs `work` on the store, as `now(_:)` does when the store is idle.
    ///
    /// - Parameters:
    ///   - work: synchronous store work, isolated to the store.
    /// - Returns: what `work` returned.
    /// - Throws: what `work` throws.
    public func run<T: Sendable, E: Error>(_ work: (isolated AlertStore) throws(E) -> T) throws(E) -> T {
        defer { endTurn() }
        return try work(self)
    }
}
