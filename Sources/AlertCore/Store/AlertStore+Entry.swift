
/// The ways into the store, one for each need, each named for what it promises.
///
/// | need                                      | call                                   | `then` runs                      |
/// |-------------------------------------------|----------------------------------------|----------------------------------|
/// | a change: create, answer, dismiss         | `write(_:then:)`                       | once the change is durable       |
/// | a read that shows store state (a list)    | `read(_:then:)`                        | once what it shows is durable    |
/// | store work that shows nothing by itself   | `run(_:then:)`, `await run(_:)`        | at once, no durability wait      |
/// | one alert, without the actor              | `snapshot(of:)`, then `whenDurable(_:then:)` before showing it |   |
///
/// "Durable" means the journal committed it (`--data-dir`), or the database committed it and this store applied it
/// (a cluster), or nothing at all in memory only. `run` is for registering and ending a wait (its wake waits for
/// durability itself), resuming a restored store, event streams (which show only events up to the durable index),
/// and async code: tests and the store's own timer. The isolated methods (`create`, `answer`, `list`, …) are the
/// async forms of the same work, for tests and tools; the server goes through the calls above.
///
/// ## Threads
///
/// This is the one place that decides which thread store work, a response and a wake run on:
///
/// - **Store work** runs on the calling thread at once when the store is idle: the HTTP thread that parsed the request
///   (`inline(_:)`, the one way to `StoreExecutor.enter()`). When the store is busy it goes to a task, whose job runs
///   on whichever thread is draining the store's executor (`StoreExecutor.enqueue`): a thread of Swift's global pool.
/// - **A response or a wake** (every `then` above, every waiter's wake, every webhook hand-off) is an effect of a store
///   turn. It runs after the turn ends, outside the store: on the thread that held the store, right after it gave it
///   back, when nothing waits for a commit (memory only, or already committed); else on the thread that made it
///   durable: the journal's writer thread after the commit; in a cluster, the store feed's task (Swift's global pool)
///   once the store applied the committed change, or the commit writer's thread for a refusal. So every `then` must
///   be quick.
extension AlertStore {
    /// What a change call hands back: its value, or why it failed.
    public typealias Completion<Value: Sendable> = @Sendable (Result<Value, AlertStoreError>) -> Void

    /// A change a client asks for.
    public enum Change: Sendable {
        /// Creates an alert, once per idempotency key and owner (`create(_:owner:idempotencyKey:)`).
        case create(PreparedAlert, owner: String?, idempotencyKey: String?)
        /// Answers a pending alert (`answer(_:with:by:)`).
        case answer(AlertID, with: AnswerDraft, by: String?)
        /// Withdraws a pending alert (`dismiss(_:by:)`).
        case dismiss(AlertID, by: String?)
    }

    /// What a change made: the alert as it is after it, and whether an earlier create with the same idempotency key
    /// made it (always false for an answer or a dismissal).
    public typealias Written = (alert: Alert, replayed: Bool)

    /// Makes a change, and calls `then` once it is durable and readable here: the store decides it (memory only, or
    /// with a journal), or proposes it to its authority and calls `then` once the authority committed it and this
    /// store applied it. A journal that could not make it durable is `unavailable`.
    ///
    /// - Parameters:
    ///   - change: What to change.
    ///   - then: The alert after the change; or what the store's rules threw (`notFound`, `alreadyResolved` with the
    ///     winning result, `invalid`, `tooManyPending`, `keyReused`), or `unavailable`.
    public nonisolated func write(_ change: Change, then: @escaping Completion<Written>) {
        switch change {
        case .create(let prepared, let owner, let idempotencyKey):
            writeCreate(prepared, owner: owner, idempotencyKey: idempotencyKey, then: then)
        case .answer(let id, let answer, let responder):
            writeResolution(id, answering: true, then: then, decided: { store throws(AlertStoreError) in
                try store.respond(id, with: answer, by: responder)
            }, proposed: { store throws(AlertStoreError) in
                try store.voted(id, with: answer, by: responder)
            })
        case .dismiss(let id, let responder):
            writeResolution(id, answering: false, then: then, decided: { store throws(AlertStoreError) in
                _ = try store.dismiss(id, by: responder)
                return try store.alert(id)
            }, proposed: { store throws(AlertStoreError) in
                Self.resolvedAsCancel(try store.pendingRecord(id).alert, resolution: .dismissed, responder: responder)
            })
        }
    }

    /// Reads on the store, and calls `then` with what `work` returned once everything it may show is durable: a read
    /// never shows a change a crash could still lose. A journal that failed meanwhile is `unavailable`.
    ///
    /// - Parameters:
    ///   - work: synchronous store work, isolated to the store; it should change nothing a client asked for.
    ///   - then: what `work` returned or threw, or `unavailable`.
    public nonisolated func read<T: Sendable>(
        _ work: @escaping @Sendable (isolated AlertStore) throws(AlertStoreError) -> T,
        then: @escaping Completion<T>
    ) {
        turn(work, done: Self.settled(then))
    }

    /// Runs `work` on the store and calls `then` with its outcome as soon as it has run, without waiting for
    /// durability: the callback form of `run(_:)`. For work that shows nothing by itself (registering a wait, whose
    /// wake waits for durability; ending one; resuming a restored store).
    ///
    /// - Parameters:
    ///   - work: synchronous store work, isolated to the store.
    ///   - then: what `work` returned or threw; on this thread before `run` returns when the store was idle.
    public nonisolated func run<T: Sendable, E: Error>(
        _ work: @escaping @Sendable (isolated AlertStore) throws(E) -> T,
        then: @escaping @Sendable (Result<T, E>) -> Void
    ) {
        let attempt: @Sendable (isolated AlertStore) -> Result<T, E> = { store in
            Result { () throws(E) -> T in try work(store) }
        }
        if let outcome = inline(attempt) { return then(outcome) }
        Task { then(await self.run(attempt)) }
    }

    /// Runs `work` on the store, without waiting for durability: the async form of `run(_:then:)`.
    ///
    /// - Parameters:
    ///   - work: synchronous store work, isolated to the store.
    /// - Returns: what `work` returned.
    /// - Throws: what `work` throws.
    public func run<T: Sendable, E: Error>(_ work: (isolated AlertStore) throws(E) -> T) throws(E) -> T {
        defer { endTurn() }
        return try work(self)
    }

    /// The alert with this id as it is now, read without the actor and without waiting: for the hot path of a plain
    /// `GET`. It may show a change not yet durable: show it through `whenDurable(_:then:)`.
    ///
    /// - Parameter id: The alert's id.
    /// - Returns: The alert, or `nil` when no alert has the id (or it was dropped by retention).
    public nonisolated func snapshot(of id: AlertID) -> Alert? {
        records.record(id)?.alert
    }

    /// Runs `then` once the last change to `alert` (a `snapshot(of:)`) is durable: at once when it is.
    ///
    /// - Parameters:
    ///   - alert: The alert about to be shown.
    ///   - then: Gets the journal's failure if that change could not be made durable.
    public nonisolated func whenDurable(_ alert: Alert, then: @escaping CommitEffect) {
        guard let fence, let number = fence.turn(of: alert.sequence) else { return then(nil) }
        let (due, failure) = fence.release([then], after: number)
        for effect in due { effect(failure) }
    }

    // MARK: The one way to the executor

    /// The actor's executor: `StoreExecutor`, so that `inline(_:)` can run work on the calling thread.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    /// Runs `work` on the calling thread at once when the store is idle; `nil` when it is busy (jobs run, or other
    /// inline work), and then the caller must go through a task. The inline path: an actor hop costs a suspended
    /// connection, a task and a resume; without it a memory-only create took about twice the server CPU
    /// (`BENCH_ONLY=store bench/run.sh`, bench/results/HISTORY.md).
    nonisolated func inline<T: Sendable>(_ work: @Sendable (isolated AlertStore) -> T) -> T? {
        guard executor.enter() else { return nil }
        defer { executor.leave() }
        return assumeIsolated { store in
            defer { store.endTurn() }
            return work(store)
        }
    }

    /// Runs `work` as one store turn and hands its outcome to `done` once everything it may show is durable, with
    /// the journal's failure if the turn could not be made durable: inline when the store is idle, else from a task.
    nonisolated func turn<T: Sendable, E: Error>(
        _ work: @escaping @Sendable (isolated AlertStore) throws(E) -> T,
        done: @escaping @Sendable (Result<T, E>, JournalFailure?) -> Void
    ) {
        let turn: @Sendable (isolated AlertStore) -> Void = { store in
            let outcome = Result { () throws(E) -> T in try work(store) }
            store.afterCommit { failure in done(outcome, failure) }
        }
        if inline(turn) != nil { return }
        Task { await self.run(turn) }
    }

    /// `then` as `turn` calls it: a journal failure is `unavailable`.
    static func settled<Value: Sendable>(
        _ then: @escaping Completion<Value>
    ) -> @Sendable (Result<Value, AlertStoreError>, JournalFailure?) -> Void {
        { outcome, failure in then(failure.map { .failure(.unavailable($0.reason)) } ?? outcome) }
    }
}
