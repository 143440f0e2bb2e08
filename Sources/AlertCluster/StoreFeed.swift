import AlertCore
import Locking

/// Hands committed events to the store in index order, each once, whoever read them (the writer after its commit, the
/// follower after a notification), and runs each commit's completions once the store applied everything before them.
final class StoreFeed: Sendable {
    /// A delivery: events to apply, then completions to run.
    private struct Item {
        var events: [AlertEvent]
        var completions: [@Sendable () -> Void]
    }

    private struct State {
        /// The store, once started.
        var store: AlertStore?
        /// The index of the last event queued for the store: later reads start after it.
        var queuedHead: UInt64
        var items: [Item] = []
        /// Whether a task is applying `items`.
        var draining = false
    }

    private let state: Lock<State>

    /// A feed whose store starts at `head`.
    init(head: UInt64) {
        state = Lock(State(queuedHead: head))
    }

    /// The index of the last event queued: a read for the store starts after it.
    var queuedHead: UInt64 { state.withLock { $0.queuedHead } }

    /// Starts applying to `store`.
    func start(_ store: AlertStore) {
        let drain = state.withLock { state in
            state.store = store
            return startDraining(&state)
        }
        if drain { Task { await self.drain() } }
    }

    /// Queues `events` (those after `queuedHead`; a run that would leave a gap is dropped, to be read again), then
    /// `completions`, which run after the store applied them and everything queued before.
    ///
    /// - Returns: How many of `events` were queued (the others the store had, or they would have left a gap).
    @discardableResult
    func deliver(_ events: [AlertEvent], then completions: [@Sendable () -> Void] = []) -> Int {
        let (drain, queued) = state.withLock { state in
            var fresh = events.drop { $0.index <= state.queuedHead }
            if let first = fresh.first, first.index != state.queuedHead + 1 { fresh = [] }
            if let last = fresh.last { state.queuedHead = last.index }
            guard !fresh.isEmpty || !completions.isEmpty else { return (false, 0) }
            state.items.append(Item(events: Array(fresh), completions: completions))
            return (startDraining(&state), fresh.count)
        }
        if drain { Task { await self.drain() } }
        return queued
    }

    private func startDraining(_ state: inout State) -> Bool {
        guard !state.draining, state.store != nil, !state.items.isEmpty else { return false }
        state.draining = true
        return true
    }

    /// Applies the queued items one after another, until none is left.
    private func drain() async {
        while true {
            let next = state.withLock { state -> (AlertStore, Item)? in
                guard let store = state.store, !state.items.isEmpty else {
                    state.draining = false
                    return nil
                }
                return (store, state.items.removeFirst())
            }
            guard let (store, item) = next else { return }
            if !item.events.isEmpty {
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
