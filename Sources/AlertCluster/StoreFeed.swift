import AlertCore
import Locking

/// Hands committed events to the store in index order, each once, whoever read them (the writer after its commit, the
/// follower after a notification), and runs each commit's completions once the store applied everything before them.
final class StoreFeed: Sendable {
    /// A delivery: events to apply, then completions to run; or the rules to take.
    private struct Item {
        var events: [AlertEvent]
        var completions: [@Sendable () -> Void]
        var rules: [AnswerRule]?
    }

    private struct State {
        /// The store, once started.
        var store: AlertStore?
        /// The index of the last event queued for the store: later reads start after it.
        var queuedHead: UInt64
        /// The last event queued (or the image's last), to be found again in the database after a reconnect.
        var lastEvent: AlertEvent?
        /// Set once the database was seen to hold less than the store, or other events: nothing more is fed.
        var divergence: String?
        var items: [Item] = []
        /// The writer's commits that came ahead of events not read yet (another instance's, committed just before),
        /// by the index of their first event: each is queued, completions and all, once the events before it are.
        var parked: [UInt64: Item] = [:]
        /// Whether a task is applying `items`.
        var draining = false
        /// The backend of the writer's connection (`PGConnection.backendProcess`), 0 before it has one.
        var writerBackend: Int32 = 0
    }

    private let state: Lock<State>
    /// Told the divergence once, when it is found (alertd logs it).
    private let divergenceObserver: Lock<Callback<String>?> = Lock(nil)

    /// A feed whose store starts at `head`, where `last` (the image's last event, if it holds the one at `head`) is.
    init(head: UInt64, last: AlertEvent?) {
        state = Lock(State(queuedHead: head, lastEvent: last?.index == head ? last : nil))
    }

    /// The index of the last event queued: a read for the store starts after it.
    var queuedHead: UInt64 { state.withLock { $0.queuedHead } }

    /// The last event queued, when known: the database must still hold it.
    var lastEvent: AlertEvent? { state.withLock { $0.lastEvent } }

    /// Why the store no longer matches the database (its head moved back, or holds other events), or nil.
    var divergence: String? { state.withLock { $0.divergence } }

    /// The backend of the writer's current connection: a notification it sent is this instance's own commit, whose
    /// events the writer feeds itself.
    var writerBackend: Int32 {
        get { state.withLock { $0.writerBackend } }
        set { state.withLock { $0.writerBackend = newValue } }
    }

    /// Checks a head read from the database against `known`, the `queuedHead` taken before the read began (every
    /// event up to it was committed before): a head behind it moved back (PostgreSQL lost commits, or was restored
    /// from a backup), and the store stops being fed for good.
    ///
    /// - Throws: `PGError` when it moved back.
    func check(head: UInt64, known: UInt64) throws(PGError) {
        guard head < known else { return }
        throw diverge("its head is \(head), behind the \(known) this instance had")
    }

    /// Stops feeding the store for good: events the database holds now would be applied over others with the same
    /// index, and ids and answers mixed up. Only a restart of the instance (a new image) brings it back.
    ///
    /// - Returns: The error that says so.
    @discardableResult
    func diverge(_ what: String) -> PGError {
        let reason = "the PostgreSQL database no longer holds what this instance showed (\(what)): it was restored "
            + "or lost commits; restart this alertd"
        let (first, waiting) = state.withLock { state in
            guard state.divergence == nil else { return (false, [@Sendable () -> Void]()) }
            state.divergence = reason
            let waiting = state.parked.keys.sorted().flatMap { state.parked[$0]?.completions ?? [] }
            state.parked = [:]
            return (true, waiting)
        }
        // What the waiting runs report was committed: their completions run, as a diverged feed's do.
        for completion in waiting { completion() }
        if first { divergenceObserver.withLock { $0 }?.call(reason) }
        return PGError(reason)
    }

    /// `observe` is called once, with the reason, when the store stops being fed for good (`diverge(_:)`).
    func observeDivergence(_ observe: @escaping @Sendable (String) -> Void) {
        divergenceObserver.withLock { $0 = Callback(observe) }
    }

    /// Starts applying to `store`.
    func start(_ store: AlertStore) {
        let drain = state.withLock { state in
            state.store = store
            return startDraining(&state)
        }
        if drain { Task { await self.drain() } }
    }

    /// Queues `events` (those after `queuedHead`), then `completions`, which run after the store applied them and
    /// everything queued before. A run that would leave a gap (the writer's commit, ahead of other instances'
    /// events the follower has not read yet) waits, completions and all, until the events before it are queued.
    /// Once diverged, nothing is queued and the completions run at once (what they report was committed).
    ///
    /// - Returns: How many of `events` were queued now, waiting runs released by them included.
    @discardableResult
    func deliver(_ events: [AlertEvent], then completions: [@Sendable () -> Void] = []) -> Int {
        let (drain, queued, diverged) = state.withLock { state in
            guard state.divergence == nil else { return (false, 0, true) }
            let fresh = events.drop { $0.index <= state.queuedHead }
            if let first = fresh.first, first.index != state.queuedHead + 1 {
                state.parked[first.index, default: Item(events: [], completions: [])].events += fresh
                state.parked[first.index]?.completions += completions
                return (false, 0, false)
            }
            if let last = fresh.last {
                state.queuedHead = last.index
                state.lastEvent = last
            }
            if !fresh.isEmpty || !completions.isEmpty {
                state.items.append(Item(events: Array(fresh), completions: completions))
            }
            let released = Self.release(&state)
            return (startDraining(&state), fresh.count + released, false)
        }
        if diverged { for completion in completions { completion() } }
        if drain { Task { await self.drain() } }
        return queued
    }

    /// Queues the waiting runs that follow `queuedHead` now (or that the events queued overtook: their
    /// completions still run in order); returns how many events that queued.
    private static func release(_ state: inout State) -> Int {
        var released = 0
        while let first = state.parked.keys.min(), first <= state.queuedHead + 1,
              let run = state.parked.removeValue(forKey: first) {
            let rest = run.events.drop { $0.index <= state.queuedHead }
            if let last = rest.last {
                state.queuedHead = last.index
                state.lastEvent = last
            }
            released += rest.count
            state.items.append(Item(events: Array(rest), completions: run.completions))
        }
        return released
    }

    /// The last index the follower should read through towards `head`: just before the first waiting run, whose
    /// events the writer delivered already.
    func readLimit(towards head: UInt64) -> UInt64 {
        state.withLock { state in
            guard let first = state.parked.keys.min(), first > state.queuedHead + 1 else { return head }
            return min(head, first - 1)
        }
    }

    /// Queues the rules as the database holds them now, for the store to take after what is queued before them.
    func deliver(rules: [AnswerRule]) {
        let drain = state.withLock { state in
            guard state.divergence == nil else { return false }
            state.items.append(Item(events: [], completions: [], rules: rules))
            return startDraining(&state)
        }
        if drain { Task { await self.drain() } }
    }

    private func startDraining(_ state: inout State) -> Bool {
        guard !state.draining, state.store != nil, !state.items.isEmpty else { return false }
        state.draining = true
        return true
    }

    /// Applies the queued items one after another, until none is left.
    private func drain() async {
        while true {
            let next = state.withLock { state -> (AlertStore, Item, diverged: Bool)? in
                guard let store = state.store, !state.items.isEmpty else {
                    state.draining = false
                    return nil
                }
                return (store, state.items.removeFirst(), state.divergence != nil)
            }
            guard let (store, item, diverged) = next else { return }
            if let rules = item.rules, !diverged { await store.replaceRules(rules) }
            if !item.events.isEmpty && !diverged {
                let applied = await store.apply(item.events)
                if let last = item.events.last, applied < last.index {
                    // The store missed an event: read again from what it has.
                    state.withLock { $0.queuedHead = min($0.queuedHead, applied) }
                }
            }
            for completion in item.completions { completion() }
        }
    }
}
