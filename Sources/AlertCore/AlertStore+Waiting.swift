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
        if alert.result != nil || timeout <= .zero { return alert }
        if isShutDown { throw .shuttingDown }
        switch await suspend(for: .resolution(sequence), timeout: timeout) {
        case .alert(let alert): return alert
        case .index, .notFound: throw .notFound(id)
        case .shuttingDown: throw .shuttingDown
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
        if changeIndex > index || timeout <= .zero { return changeIndex }
        if isShutDown { throw .shuttingDown }
        switch await suspend(for: .change(after: index), timeout: timeout) {
        case .index(let current): return current
        case .alert, .notFound: return changeIndex
        case .shuttingDown: throw .shuttingDown
        }
    }

    /// Wakes every waiter with `shuttingDown`; later waits that would suspend throw `shuttingDown` at once.
    /// Creating, answering, expiring and reading go on working. Calling it again does nothing.
    public func shutdown() {
        guard !isShutDown else { return }
        isShutDown = true
        let all = waiters
        waiters = [:]
        resolutionWaiters = [:]
        changeWaiters = [:]
        for waiter in all.values {
            noteStaleDeadline()
            waiter.continuation.resume(returning: .shuttingDown)
        }
    }

    /// Suspends the calling task as a waiter until it is woken, times out, or is cancelled.
    private func suspend(for target: Waiter.Target, timeout: Duration) async -> WaitOutcome {
        let id = nextWaiterID
        nextWaiterID += 1
        let deadline = ContinuousClock.now + min(timeout, Self.longestWait)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<WaitOutcome, Never>) in
                if Task.isCancelled {
                    continuation.resume(returning: currentOutcome(for: target))
                    return
                }
                waiters[id] = Waiter(target: target, continuation: continuation)
                switch target {
                case .resolution(let sequence): resolutionWaiters[sequence, default: []].insert(id)
                case .change(let after): changeWaiters[after, default: []].insert(id)
                }
                schedule(Deadline(instant: deadline, kind: .waiter(id)))
            }
        } onCancel: {
            Task { await self.cancelWait(id) }
        }
    }

    /// Ends a wait whose task was cancelled, if still waiting; its heap entry becomes stale.
    private func cancelWait(_ id: UInt64) {
        if timeOut(waiter: id) { noteStaleDeadline() }
    }

    /// Resumes a waiter, if still waiting, with things as they are now (its time is up or its task cancelled).
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
        waiter.continuation.resume(returning: currentOutcome(for: waiter.target))
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
