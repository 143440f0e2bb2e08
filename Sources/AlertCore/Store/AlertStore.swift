import Foundation

/// Holds every alert, applies the rules, and wakes whoever waits for an answer or a change.
///
/// All state lives in this actor, so exactly one of any concurrent answers, dismissals and expiries wins.
/// Pending alerts are indexed by arrival, globally, per presenter and per owner, so listing them costs O(limit).
/// Every deadline (alert expiry, waiter time-out, retention) sits in one min-heap served by one timer task.
///
/// ```swift
/// let store = AlertStore()
/// let alert = try await store.create(AlertDraft(title: "Deploy?", buttons: [.init(title: "No"), .init(title: "Yes")]))
/// let result = try await store.answer(alert.id, with: AnswerDraft(choice: .title("Yes")))
/// ```
public actor AlertStore {
    /// The limits and retention this store was created with.
    public nonisolated let configuration: Configuration
    /// Runs the store's jobs, and inline work (`inline(_:)`).
    nonisolated let executor = StoreExecutor()
    /// Where changes are made durable; `nil` when the store is memory only.
    public nonisolated let journal: StoreJournal?
    /// Which turns the journal has committed, and what waits for them; `nil` when memory only.
    nonisolated let fence: CommitFence?
    /// The database that decides every change when several instances share it; `nil` when this store decides
    /// (memory only, or with a journal). With one, the store's alerts are a cache of what the authority committed,
    /// changed only by `apply(_:)`.
    public nonisolated let authority: StoreAuthority?
    /// This store's identity: kept in the data dir with a journal, new for every process without one. Clients compare
    /// it to tell a restart that kept their alerts from one that lost them.
    public nonisolated let epoch: String
    /// What the current turn changed, released when it ends (`endTurn()`).
    var turn = StoreTurn()

    // Alerts.
    /// Every kept alert, by sequence number and by id; readable without the actor.
    let records = AlertTable()
    /// The next sequence number to hand out.
    var nextSequence: UInt64 = 1
    /// Pending alerts in arrival order.
    var pendingQueue = ArrivalQueue()
    /// Pending alerts in arrival order per presenter and per owner; a key with none has no entry.
    var keyedQueues: [PendingKey: ArrivalQueue] = [:]
    /// Resolved alerts still kept.
    var resolvedIndex = ResolvedIndex()
    /// The change index: bumped by every create, vote, escalation and resolution.
    var changeIndex: UInt64 = 0
    /// The most recent changes, for resuming event streams.
    var eventLog: EventLog
    /// Cursors below this index name events not known at all (`StoreImage.historyFloor`: trimmed before the start, or
    /// from before a restore from a backup), so that such a cursor gets `410`, a producer's too, also once new events
    /// pass it. 0 for a store that started empty.
    var historyFloor: UInt64 = 0
    /// Alerts created and resolved (by resolution) since start, for metrics.
    var createdCount: UInt64 = 0
    var resolutionCounts: [Resolution: UInt64] = [:]
    /// Escalation steps taken since start, for metrics.
    var escalationCount: UInt64 = 0

    // Rules.
    /// The rules that answer alerts, by name (`AlertStore+Rules.swift`).
    var rules: [String: AnswerRule] = [:]
    /// Alerts each rule answered since start, by rule name, for metrics.
    var ruleAnswerCounts: [String: UInt64] = [:]

    // Idempotency.
    /// Idempotency keys in use, each within its owner, with the draft they created and the alert's sequence number.
    var idempotencyKeys: [IdempotencyScope: (draft: AlertDraft, sequence: UInt64)] = [:]
    /// The key that created an alert, by its sequence number, so retention can drop the key with it.
    var keysBySequence: [UInt64: IdempotencyScope] = [:]
    /// Told about every resolved alert that has a callback URL, to deliver its result.
    let resolutionObserver: (@Sendable (Alert) -> Void)?

    // Waiters.
    /// Suspended waits by waiter id.
    var waiters: [UInt64: Waiter] = [:]
    /// Waiter ids by the sequence number of the alert they wait for.
    var resolutionWaiters: [UInt64: Set<UInt64>] = [:]
    /// Waiter ids by the index they wait to be passed; they wake when the index becomes that plus one.
    var changeWaiters: [UInt64: Set<UInt64>] = [:]
    /// The next waiter id to hand out.
    var nextWaiterID: UInt64 = 1
    /// Whether `shutdown()` was called.
    var isShutDown = false

    // The timer.
    /// Every deadline; some are stale (their alert resolved or their waiter left) and are skipped when due.
    var deadlines = MinHeap<Deadline>()
    /// How many entries of `deadlines` are known to be stale; the heap is rebuilt when they are most of it.
    var staleDeadlines = 0
    /// The instant of the one scheduled retention deadline, if any.
    var retentionDeadline: ContinuousClock.Instant?
    /// The task sleeping until `timerInstant`.
    var timerTask: Task<Void, Never>?
    /// When `timerTask` wakes.
    var timerInstant: ContinuousClock.Instant?
    /// Tells a waking timer task whether it is still the current one.
    var timerGeneration: UInt64 = 0
    /// Set while due deadlines run, so that scheduling does not start another timer meanwhile.
    var isRunningDeadlines = false

    /// Creates an empty store.
    ///
    /// - Parameters:
    ///   - configuration: Limits and retention.
    ///   - resolutionObserver: Told about every resolved alert that has a callback URL (the webhook
    ///     sender); called on the store's executor, so it must return quickly.
    public init(configuration: Configuration = .init(), resolutionObserver: (@Sendable (Alert) -> Void)? = nil) {
        self.configuration = configuration
        self.resolutionObserver = resolutionObserver
        eventLog = EventLog(capacity: configuration.eventHistory)
        journal = nil
        fence = nil
        authority = nil
        epoch = Self.randomEpoch()
    }

    /// Restores a store from what `journal` last committed, and journals every change from now on.
    ///
    /// Alerts whose timeout passed meanwhile expire, resolved alerts past retention are dropped, and deliveries not
    /// yet done start again, as soon as the store's timer runs (at once); each is a normal change with its event.
    ///
    /// - Parameters:
    ///   - configuration: Limits and retention.
    ///   - journal: Where changes are made durable.
    ///   - image: What the journal holds.
    ///   - resolutionObserver: Told about every resolved alert whose callback is not yet delivered.
    public init(
        configuration: Configuration = .init(), journal: StoreJournal, image: StoreImage,
        resolutionObserver: (@Sendable (Alert) -> Void)? = nil
    ) {
        self.configuration = configuration
        self.resolutionObserver = resolutionObserver
        eventLog = EventLog(capacity: configuration.eventHistory)
        self.journal = journal
        fence = CommitFence(durableIndex: image.changeIndex)
        authority = nil
        epoch = image.epoch
        // No one else has the store yet, so it is idle and `inline` runs the restore at once.
        let restored: Void? = inline { store in store.restore(image) }
        precondition(restored != nil, "a new store was busy")
    }

    /// A cache of what `authority` committed, starting from its image: every change is proposed to the authority, and
    /// the store changes only when the authority hands committed changes to `apply(_:)`.
    ///
    /// - Parameters:
    ///   - configuration: Limits and retention.
    ///   - authority: The database that decides every change.
    ///   - image: What the authority held when the store started; `apply(_:)` continues after `image.changeIndex`.
    public init(configuration: Configuration = .init(), authority: StoreAuthority, image: StoreImage) {
        self.configuration = configuration
        resolutionObserver = nil
        eventLog = EventLog(capacity: configuration.eventHistory)
        journal = nil
        fence = nil
        self.authority = authority
        epoch = image.epoch
        let restored: Void? = inline { store in store.restore(image) }
        precondition(restored != nil, "a new store was busy")
    }

    deinit {
        timerTask?.cancel()
    }

    /// The change index: bumped by every create and every resolution (not by dropping old resolved alerts).
    public var index: UInt64 { visibleIndex }

    /// Counts of pending and kept resolved alerts, suspended waits, and the change index.
    public var statistics: StoreStatistics {
        StoreStatistics(
            pending: pendingQueue.count,
            resolved: resolvedIndex.count,
            waiters: waiters.count,
            index: changeIndex,
            created: createdCount,
            resolutions: resolutionCounts,
            ruleAnswers: ruleAnswerCounts,
            escalations: escalationCount
        )
    }

    /// The alert with this id.
    ///
    /// - Parameters:
    ///   - id: The alert's id.
    /// - Throws: `AlertStoreError` `notFound` when no alert has the id, or it was resolved and dropped.
    public func alert(_ id: AlertID) throws(AlertStoreError) -> Alert {
        try record(id).alert
    }

    /// The sequence number and alert for an id.
    func record(_ id: AlertID) throws(AlertStoreError) -> (sequence: UInt64, alert: Alert) {
        guard let record = records.record(id) else { throw .notFound(id) }
        return record
    }

    /// Bumps the change index, records the change as an event, and wakes (once it is durable) the change waiters it
    /// passes.
    func bumpIndex(_ kind: AlertEvent.Kind, _ alert: Alert) {
        changeIndex += 1
        eventLog.append(AlertEvent(index: changeIndex, kind: kind, alert: alert))
        guard let ids = changeWaiters.removeValue(forKey: changeIndex - 1) else { return }
        for id in ids {
            guard let waiter = waiters.removeValue(forKey: id) else { continue }
            noteStaleDeadline()
            wake(waiter, .index(changeIndex))
        }
    }
}

extension AlertStore {
    /// Limits and retention for an `AlertStore`.
    public struct Configuration: Sendable {
        /// The most pending alerts; `create` throws `tooManyPending` beyond.
        public var maxPending: Int
        /// The most resolved alerts kept; the oldest resolutions are dropped first.
        public var maxResolved: Int
        /// How long a resolved alert is kept.
        public var retention: Duration
        /// Size limits for `create`.
        public var limits: StoreLimits
        /// How many recent events are kept for resuming event streams; older cursors are gone.
        public var eventHistory: Int

        /// Creates a configuration; the defaults are the contract's.
        ///
        /// - Parameters:
        ///   - maxPending: The most pending alerts.
        ///   - maxResolved: The most resolved alerts kept.
        ///   - retention: How long a resolved alert is kept.
        ///   - limits: Size limits for `create`.
        ///   - eventHistory: How many recent events are kept for resuming event streams.
        public init(
            maxPending: Int = 100_000,
            maxResolved: Int = 10_000,
            retention: Duration = .seconds(3600),
            limits: StoreLimits = StoreLimits(),
            eventHistory: Int = 10_000
        ) {
            self.maxPending = maxPending
            self.maxResolved = maxResolved
            self.retention = retention
            self.limits = limits
            self.eventHistory = eventHistory
        }
    }
}

/// Counts describing an `AlertStore` at one moment.
public struct StoreStatistics: Sendable, Equatable {
    /// Alerts waiting for an answer.
    public var pending: Int
    /// Resolved alerts still kept.
    public var resolved: Int
    /// Suspended `waitForResolution` and `waitForChange` calls.
    public var waiters: Int
    /// The change index.
    public var index: UInt64
    /// Alerts created since the store started.
    public var created: UInt64 = 0
    /// Alerts resolved since the store started, by how they resolved.
    public var resolutions: [Resolution: UInt64] = [:]
    /// Alerts answered by each rule since the store started, by rule name.
    public var ruleAnswers: [String: UInt64] = [:]
    /// Escalation steps taken since the store started.
    public var escalations: UInt64 = 0

    /// Creates statistics.
    ///
    /// - Parameters:
    ///   - pending: Alerts waiting for an answer.
    ///   - resolved: Resolved alerts still kept.
    ///   - waiters: Suspended waits.
    ///   - index: The change index.
    ///   - created: Alerts created since start.
    ///   - resolutions: Alerts resolved since start, by resolution.
    ///   - ruleAnswers: Alerts each rule answered since start.
    ///   - escalations: Escalation steps taken since start.
    public init(
        pending: Int, resolved: Int, waiters: Int, index: UInt64, created: UInt64 = 0,
        resolutions: [Resolution: UInt64] = [:], ruleAnswers: [String: UInt64] = [:], escalations: UInt64 = 0
    ) {
        self.escalations = escalations
        self.pending = pending
        self.resolved = resolved
        self.waiters = waiters
        self.index = index
        self.created = created
        self.resolutions = resolutions
        self.ruleAnswers = ruleAnswers
    }
}

/// An idempotency key within its owner: two producers using the same key never see each other's alert.
struct IdempotencyScope: Hashable, Sendable {
    /// Who created the alert, or `nil` for nobody in particular.
    var owner: String?
    /// The producer's key.
    var key: String
}

/// What a per-key queue of pending alerts is keyed by, so a filtered list costs O(limit) too.
enum PendingKey: Hashable, Sendable {
    /// Alerts addressed to this presenter.
    case presenter(String)
    /// Alerts created by this owner.
    case owner(String)
}

extension Date {
    /// Now, to the nearest millisecond: the precision of the API's timestamps and of the journal, so an alert
    /// restored after a restart equals the one served before it.
    static var storeNow: Date { Date().millisecondPrecise }

    /// This date to the nearest millisecond.
    var millisecondPrecise: Date {
        Date(timeIntervalSinceReferenceDate: (timeIntervalSinceReferenceDate * 1000).rounded() / 1000)
    }
}

extension AlertStore {
    /// Rebuilds the store from a journal's image: the table, the arrival queues, the resolved alerts in resolution
    /// order, idempotency keys, the event history and the change index. Deadlines that passed while the store was
    /// down are due at once; resolved alerts whose callback is not yet delivered are handed to the sender again.
    func restore(_ image: StoreImage) {
        nextSequence = max(image.nextSequence, (image.boxes.last?.alert.sequence ?? 0) + 1)
        changeIndex = image.changeIndex
        for event in image.events { eventLog.append(event) }
        historyFloor = image.historyFloor
        for rule in image.rules { rules[rule.name] = rule }
        let wallNow = Date()
        let now = ContinuousClock.now
        /// The monotonic instant of a wall-clock date, as seen from now.
        func instant(_ date: Date) -> ContinuousClock.Instant {
            now + .milliseconds(Int64((date.timeIntervalSince(wallNow) * 1000).rounded()))
        }
        // The table is most of a restore's time (a cache miss or two an alert in each of its dictionaries), and
        // nothing here reads it before the idempotency keys: it fills on threads of its own meanwhile.
        let (table, boxes) = (records, image.boxes)
        let filling = ThreadWork { table.restore(boxes) }
        pendingQueue.reserveCapacity(image.boxes.count)
        // Each alert is read through its box, never copied out: a copy of 1M alerts is 1M × 8 retains.
        var resolved: [(resolvedAt: Date, sequence: UInt64)] = []
        for box in image.boxes {
            if let result = box.alert.result {
                resolved.append((result.resolvedAt, box.alert.sequence))
                continue
            }
            index(pending: box.alert)
            if let expiresAt = box.alert.expiresAt {
                deadlines.insert(Deadline(instant: instant(expiresAt), kind: .expiry(box.alert.sequence)))
            }
            if let due = box.alert.nextEscalationAt {
                deadlines.insert(Deadline(instant: instant(due), kind: .escalation(box.alert.sequence)))
            }
        }
        resolved.sort { ($0.resolvedAt, $0.sequence) < ($1.resolvedAt, $1.sequence) }
        for (resolvedAt, sequence) in resolved {
            resolvedIndex.insert(sequence, at: instant(resolvedAt))
        }
        filling.take()
        for (record, sequence) in image.idempotency where records[sequence] != nil {
            let key = IdempotencyScope(owner: record.owner, key: record.key)
            idempotencyKeys[key] = (record.draft, sequence)
            keysBySequence[sequence] = key
        }
        createdCount = 0
    }

    /// Starts what a restored store owes: the timer (alerts whose timeout passed while alertd was down expire at
    /// once, those whose escalation step came escalate at once, resolved alerts past retention are dropped) and the webhook deliveries not yet done (at least once:
    /// one cut short by the restart is made again). Call it once the webhook sender is connected. Does nothing
    /// more than arm the timer for a store that was not restored.
    public func resume() {
        defer { endTurn() }
        scheduleRetention()
        armTimer()
        for sequence in resolvedIndex.bySequence {
            if let alert = records[sequence] { startDelivery(of: alert) }
        }
    }
}
