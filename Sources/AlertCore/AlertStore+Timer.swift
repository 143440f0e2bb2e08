import AlertModel

/// The one timer: a min-heap of deadlines served by a single task sleeping until the earliest.
extension AlertStore {
    /// The longest the timer task sleeps in one go; it then re-arms (this keeps far deadlines in range).
    static let longestSleep = Duration.seconds(3600)

    /// Adds a deadline and makes sure the timer wakes for it.
    func schedule(_ deadline: Deadline) {
        deadlines.insert(deadline)
        armTimer()
    }

    /// Notes that one heap entry became stale; rebuilds the heap when stale entries are most of it.
    func noteStaleDeadline() {
        staleDeadlines += 1
        guard staleDeadlines > 1024, staleDeadlines > deadlines.count / 2 else { return }
        deadlines.filter(isLive)
        staleDeadlines = 0
    }

    /// Whether a deadline still has work to do.
    private func isLive(_ deadline: Deadline) -> Bool {
        switch deadline.kind {
        case .expiry(let sequence): records[sequence].map { $0.result == nil } ?? false
        case .waiter(let id): waiters[id] != nil
        case .retention: deadline.instant == retentionDeadline
        }
    }

    /// Starts a timer task for the earliest deadline unless one already wakes no later than it.
    func armTimer() {
        guard !isRunningDeadlines, let next = deadlines.min?.instant else { return }
        if timerTask != nil, let armed = timerInstant, armed <= next { return }
        timerTask?.cancel()
        timerGeneration += 1
        let generation = timerGeneration
        let wake = min(next, .now + Self.longestSleep)
        timerInstant = wake
        timerTask = Task { [weak self] in
            do {
                try await Task.sleep(until: wake, clock: .continuous)
            } catch {
                return  // cancelled: a newer timer task took over
            }
            await self?.timerFired(generation: generation)
        }
    }

    /// Runs the due deadlines, if this timer task is still the current one, then re-arms.
    private func timerFired(generation: UInt64) {
        guard generation == timerGeneration else { return }
        timerTask = nil
        timerInstant = nil
        runDueDeadlines(now: .now)
        endTurn()
    }

    /// Pops and runs every deadline at or before `now`, then re-arms the timer for the next one.
    func runDueDeadlines(now: ContinuousClock.Instant) {
        isRunningDeadlines = true
        defer {
            isRunningDeadlines = false
            armTimer()
        }
        while let next = deadlines.min, next.instant <= now {
            deadlines.removeMin()
            guard isLive(next) else {
                if next.kind != .retention { staleDeadlines = max(staleDeadlines - 1, 0) }
                continue
            }
            switch next.kind {
            case .expiry(let sequence):
                // After a failed commit nothing more is written; the alert expires after a restart.
                if let authority {
                    proposeExpiry(sequence, to: authority)
                } else if fence?.failure == nil, let alert = records[sequence] {
                    _ = resolveAsCancel(sequence, alert: alert, resolution: .expired)
                }
            case .waiter(let id):
                timeOut(waiter: id)
            case .retention:
                retentionDeadline = nil
                if fence?.failure == nil { purgeRetained(now: now) }
                scheduleRetention()
            }
        }
    }
}
