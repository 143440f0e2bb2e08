
extension AlertStore {
    /// The longest a single wait is held, whatever `timeout` says.
    static let longestWait = Duration.seconds(86_400 * 366)

    /// Waits until an alert resolves or `timeout` passes, holding no thread.
    ///
    /// Returns at once when the alert is already resolved or `timeout` is zero or less. If the calling task
    /// is cancelled, returns the alert as it is then.
    ///
    /// - Parameters:
    ///   - id: The alert's id.
    ///   - timeout: How long to wait at most.
    /// - Returns: The alert: resolved, or still pending when `timeout` passed.
    /// - Throws: `AlertStoreError` `notFound`, or `shuttingDown` when the store shuts down while this waits
    ///   (or had shut down before a wait that would suspend).
    public func waitForResolution(of id: AlertID, timeout: Duration) async throws(AlertStoreError) -> Alert {
        let (sequence, alert) = try record(id)
        if alert.result != nil || timeout <= .zero {
            try await durable()
            return alert
        }
        if isShutDown { throw .shuttingDown }
        switch await suspend(for: .resolution(sequence), timeout: timeout) {
        case .alert(let alert): return alert
        case .index, .notFound: throw .notFound(id)
        case .shuttingDown: throw .shuttingDown
        case .unavailable(let failure): throw .unavailable(failure.reason)
        }
    }

    /// Waits until the change index is greater than `index` or `timeout` passes, holding no thread.
    ///
    /// Returns at once when the index is already greater or `timeout` is zero or less. If the calling task
    /// is cancelled, returns the index as it is then.
    ///
    /// - Parameters:
    ///   - index: The index the caller has seen.
    ///   - timeout: How long to wait at most.
    /// - Returns: The current change index.
    /// - Throws: `AlertStoreError` `shuttingDown` when the store shuts down while this waits (or had shut down
    ///   before a wait that would suspend).
    public func waitForChange(after index: UInt64, timeout: Duration) async throws(AlertStoreError) -> UInt64 {
        if changeIndex > index || timeout <= .zero {
            let current = changeIndex
            try await durable()
            return current
        }
        if isShutDown { throw .shuttingDown }
        switch await suspend(for: .change(after: index), timeout: timeout) {
        case .index(let current): return current
        case .alert, .notFound: return visibleIndex
        case .shuttingDown: throw .shuttingDown
        case .unavailable(let failure): throw .unavailable(failure.reason)
        }
    }

    /// Calls `wake` once when an alert resolves or `timeout` passes: the callback form of
    /// `waitForResolution`, for a waiter that holds no task (an HTTP long-poll on a suspended connection).
    ///
    /// Calls `wake` without waiting when the alert is already resolved or `timeout` is zero or less. Every wake is an
    /// effect of a store turn: it runs once that turn is over (and durable, with a journal), outside the store but on
    /// the thread that held it or the journal's, so it must be quick; an `await` of this call may resume first.
    ///
    /// - Parameters:
    ///   - id: The alert's id.
    ///   - timeout: How long to wait at most.
    ///   - wake: Gets `.alert` (resolved, or still pending when `timeout` passed or the wait was cancelled),
    ///     `.notFound` (the alert was dropped meanwhile) or `.shuttingDown`.
    /// - Returns: The ticket that ends the wait early with `cancelWaiter(_:)`.
    /// - Throws: `AlertStoreError` `notFound`, or `shuttingDown` when the store has shut down and the wait would
    ///   have to wait; `wake` is not called then.
    public func whenResolved(
        _ id: AlertID, timeout: Duration, _ wake: @escaping @Sendable (WaitOutcome) -> Void
    ) throws(AlertStoreError) -> WaiterTicket {
        defer { endTurn() }
        let (sequence, alert) = try record(id)
        if alert.result != nil || timeout <= .zero {
            afterCommit { failure in wake(failure.map(WaitOutcome.unavailable) ?? .alert(alert)) }
            return .answered
        }
        if isShutDown { throw .shuttingDown }
        return register(.resolution(sequence), timeout: timeout, wake)
    }

    /// Calls `wake` once when the change index passes `index` or `timeout` passes: the
    /// callback form of `waitForChange`.
    ///
    /// Calls `wake` without waiting when the index is already greater or `timeout` is zero or less. Every wake runs
    /// once its store turn is over (and durable), as for `whenResolved`: it must be quick.
    ///
    /// - Parameters:
    ///   - index: The index the caller has seen.
    ///   - timeout: How long to wait at most.
    ///   - wake: Gets `.index` with the current change index, or `.shuttingDown`.
    /// - Returns: The ticket that ends the wait early with `cancelWaiter(_:)`.
    /// - Throws: `AlertStoreError` `shuttingDown` when the store has shut down and the wait would have to wait.
    public func whenChanged(
        after index: UInt64, timeout: Duration, _ wake: @escaping @Sendable (WaitOutcome) -> Void
    ) throws(AlertStoreError) -> WaiterTicket {
        defer { endTurn() }
        if changeIndex > index || timeout <= .zero {
            let current = changeIndex
            afterCommit { failure in wake(failure.map(WaitOutcome.unavailable) ?? .index(current)) }
            return .answered
        }
        if isShutDown { throw .shuttingDown }
        return register(.change(after: index), timeout: timeout, wake)
    }

    /// Ends a wait early, as if its time were up: its `wake` runs now with things as they are (the alert as it is,
    /// the current index). Does nothing when the wait is over already.
    ///
    /// - Parameters:
    ///   - ticket: What `whenResolved` or `whenChanged` returned.
    public func cancelWaiter(_ ticket: WaiterTicket) {
        defer { endTurn() }
        if timeOut(waiter: ticket.id) { noteStaleDeadline() }
    }

    /// Wakes every waiter with `shuttingDown`; later waits that would suspend throw `shuttingDown` at once.
    /// Creating, answering, expiring and reading go on working. Calling it again does nothing.
    public func shutdown() {
        defer { endTurn() }
        guard !isShutDown else { return }
        isShutDown = true
        let all = waiters
        waiters = [:]
        resolutionWaiters = [:]
        changeWaiters = [:]
        for waiter in all.values {
            noteStaleDeadline()
            wake(waiter, .shuttingDown)
        }
    }

    /// Returns once every change made so far is durable (at once when memory only).
    ///
    /// - Throws: `AlertStoreError` `unavailable` when the journal failed to make one durable.
    func durable() async throws(AlertStoreError) {
        guard let fence, fence.durableIndex < changeIndex || fence.failure != nil else { return }
        let failure = await withCheckedContinuation { (continuation: CheckedContinuation<JournalFailure?, Never>) in
            afterCommit { continuation.resume(returning: $0) }
            endTurn()
        }
        if let failure { throw .unavailable(failure.reason) }
    }

    /// A fresh waiter id; ids are never reused, so a late cancellation cannot end another wait.
    private func takeWaiterID() -> UInt64 {
        defer { nextWaiterID += 1 }
        return nextWaiterID
    }

    /// Adds a waiter and its deadline.
    private func register(
        _ target: Waiter.Target, timeout: Duration, id: UInt64? = nil,
        _ wake: @escaping @Sendable (WaitOutcome) -> Void
    ) -> WaiterTicket {
        let id = id ?? takeWaiterID()
        waiters[id] = Waiter(target: target, wake: wake)
        switch target {
        case .resolution(let sequence): resolutionWaiters[sequence, default: []].insert(id)
        case .change(let after): changeWaiters[after, default: []].insert(id)
        }
        schedule(Deadline(instant: .now + min(timeout, Self.longestWait), kind: .waiter(id)))
        return WaiterTicket(id: id)
    }

    /// Suspends the calling task as a waiter until it is woken, times out, or is cancelled.
    private func suspend(for target: Waiter.Target, timeout: Duration) async -> WaitOutcome {
        let ticket = WaiterTicket(id: takeWaiterID())
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<WaitOutcome, Never>) in
                if Task.isCancelled {
                    continuation.resume(returning: currentOutcome(for: target))
                    return
                }
                _ = register(target, timeout: timeout, id: ticket.id) { continuation.resume(returning: $0) }
                endTurn()
            }
        } onCancel: {
            Task { await self.cancelWaiter(ticket) }
        }
    }

    /// Wakes a waiter, if still waiting, with things as they are now (its time is up or its wait cancelled).
    ///
    /// - Returns: Whether the waiter was still waiting.
    @discardableResult
    func timeOut(waiter id: UInt64) -> Bool {
        guard let waiter = waiters.removeValue(forKey: id) else { return false }
        switch waiter.target {
        case .resolution(let sequence):
            resolutionWaiters[sequence]?.remove(id)
            if resolutionWaiters[sequence]?.isEmpty == true { resolutionWaiters[sequence] = nil }
        case .change(let after):
            changeWaiters[after]?.remove(id)
            if changeWaiters[after]?.isEmpty == true { changeWaiters[after] = nil }
        }
        wake(waiter, currentOutcome(for: waiter.target))
        return true
    }

    /// What a waiter gets when it stops waiting without being woken.
    private func currentOutcome(for target: Waiter.Target) -> WaitOutcome {
        switch target {
        case .resolution(let sequence): records[sequence].map(WaitOutcome.alert) ?? .notFound
        case .change: .index(changeIndex)
        }
    }
}

/// A wait registered with the store: `waitForResolution`/`waitForChange` (an async caller suspended on a continuation)
/// or `whenResolved`/`whenChanged` (a callback, no task).
struct Waiter: Sendable {
    /// What the waiter waits for.
    enum Target: Sendable, Equatable {
        /// The resolution of the alert with this sequence number.
        case resolution(UInt64)
        /// A change index greater than this one.
        case change(after: UInt64)
    }

    /// What it waits for.
    var target: Target
    /// Called exactly once, on the store's executor: the store removes the waiter from its table before calling it.
    var wake: @Sendable (WaitOutcome) -> Void
}

/// Names a wait registered with `AlertStore.whenResolved` or `whenChanged`, to end it early with `cancelWaiter`.
public struct WaiterTicket: Sendable, Hashable {
    /// The waiter's id in the store; 0 for a wait that was answered at once and so was never registered.
    let id: UInt64

    /// A wait answered at once: cancelling it does nothing.
    static let answered = WaiterTicket(id: 0)
}

/// How a wait ends; the store wakes each waiter with exactly one.
public enum WaitOutcome: Sendable {
    /// The alert, resolved or (after a time-out or cancellation) still pending.
    case alert(Alert)
    /// The change index.
    case index(UInt64)
    /// The alert is gone.
    case notFound
    /// The store shut down.
    case shuttingDown
    /// The change that would have woken the waiter could not be made durable (the journal failed).
    case unavailable(JournalFailure)
}
