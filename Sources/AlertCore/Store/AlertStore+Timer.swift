
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
    func isLive(_ deadline: Deadline) -> Bool {
        switch deadline.kind {
        case .expiry(let sequence): records[sequence].map { $0.result == nil } ?? false
        case .escalation(let sequence): records[sequence]?.nextEscalationAt != nil
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
                    propose(next.kind, to: authority)
                } else if fence?.failure == nil, let alert = records[sequence] {
                    _ = resolveAsCancel(sequence, alert: alert, resolution: .expired)
                }
            case .escalation(let sequence):
                if let authority {
                    propose(next.kind, to: authority)
                } else if fence?.failure == nil {
                    escalate(sequence)
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

/// Something the store's one timer must do at an instant.
struct Deadline: Comparable, Sendable {
    /// What to do.
    enum Kind: Hashable, Sendable {
        /// Expire the alert with this sequence number, if still pending.
        case expiry(UInt64)
        /// Take the next escalation step of the alert with this sequence number, if still pending.
        case escalation(UInt64)
        /// Time out the waiter with this id, if still waiting.
        case waiter(UInt64)
        /// Drop resolved alerts whose retention has passed.
        case retention
    }

    /// When to do it.
    var instant: ContinuousClock.Instant
    /// What to do.
    var kind: Kind

    static func < (lhs: Deadline, rhs: Deadline) -> Bool {
        lhs.instant < rhs.instant
    }
}

/// A binary min-heap: `min` in O(1), `insert` and `removeMin` in O(log n).
struct MinHeap<Element: Comparable> {
    private(set) var elements: [Element] = []

    /// Creates a heap from any elements in O(n).
    init<S: Sequence>(_ elements: S) where S.Element == Element {
        self.elements = Array(elements)
        var index = self.elements.count / 2
        while index > 0 {
            index -= 1
            siftDown(from: index)
        }
    }

    /// Creates an empty heap.
    init() {}

    /// The number of elements.
    var count: Int { elements.count }

    /// Whether the heap is empty.
    var isEmpty: Bool { elements.isEmpty }

    /// The smallest element, if any.
    var min: Element? { elements.first }

    /// Adds an element.
    mutating func insert(_ element: Element) {
        elements.append(element)
        siftUp(from: elements.count - 1)
    }

    /// Removes and returns the smallest element, if any.
    @discardableResult
    mutating func removeMin() -> Element? {
        guard !elements.isEmpty else { return nil }
        elements.swapAt(0, elements.count - 1)
        let smallest = elements.removeLast()
        if !elements.isEmpty { siftDown(from: 0) }
        return smallest
    }

    /// Keeps only the elements for which `isIncluded` is true, in O(n).
    mutating func filter(_ isIncluded: (Element) -> Bool) {
        self = MinHeap(elements.filter(isIncluded))
    }

    private mutating func siftUp(from start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard elements[child] < elements[parent] else { return }
            elements.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < elements.count else { return }
            let right = left + 1
            var smallest = right < elements.count && elements[right] < elements[left] ? right : left
            if !(elements[smallest] < elements[parent]) { smallest = parent }
            guard smallest != parent else { return }
            elements.swapAt(parent, smallest)
            parent = smallest
        }
    }
}

extension MinHeap: Sendable where Element: Sendable {}
