import AlertModel
import Locking

/// Work the store releases once a turn's changes are durable: a response, a waiter's wake, a webhook delivery.
/// It gets `nil` when they are, or the journal's failure when they never will be.
public typealias CommitEffect = @Sendable (JournalFailure?) -> Void

/// Tracks which of the store's turns the journal has committed, and holds back what depends on the others.
///
/// Turns are numbered in the order the store appends them to the journal (1, 2, …); the journal commits them in that
/// order. Every alert changed by a turn not yet committed is marked with that turn, so a read that shows the alert
/// can wait for it; every effect waits for the turn it belongs to (an effect of a turn that changed nothing waits for
/// the last turn appended: a `409`, a replay or a list shows what that turn did).
final class CommitFence: Sendable {
    private struct State {
        /// The last turn appended to the journal, and the last one it committed.
        var appended: UInt64 = 0
        var committed: UInt64 = 0
        /// Set by the first failed commit; every later turn fails too.
        var failure: JournalFailure?
        /// Effects waiting for a turn, by turn.
        var waiting: [UInt64: [CommitEffect]] = [:]
        /// The turn that last changed each alert whose change is not committed yet, by sequence number.
        var unsettled: [UInt64: UInt64] = [:]
        /// The marks of uncommitted turns, in turn order (turns mark before they are appended, in order).
        var marks = KeyedQueue<UInt64>()
        /// The change index at the end of each uncommitted turn, in turn order, and the last committed one.
        var indexes = KeyedQueue<UInt64>()
        var durableIndex: UInt64 = 0
    }

    private let state: Lock<State>

    init(durableIndex: UInt64) {
        state = Lock(State(durableIndex: durableIndex))
    }

    /// The change index of the last committed turn: events up to it may be shown.
    var durableIndex: UInt64 { state.withLock { $0.durableIndex } }

    /// Why the journal failed, if it did.
    var failure: JournalFailure? { state.withLock { $0.failure } }

    /// Marks an alert as changed by the turn now being made (the one after the last appended). Call it before the
    /// change becomes readable, so a reader that sees the change also sees the mark.
    func mark(_ sequence: UInt64) {
        state.withLock { state in
            let turn = state.appended + 1
            state.unsettled[sequence] = turn
            state.marks.append(sequence, key: turn)
        }
    }

    /// Numbers the turn being appended, with the change index it ends at.
    func append(index: UInt64) -> UInt64 {
        state.withLock { state in
            state.appended += 1
            state.indexes.append(index, key: state.appended)
            return state.appended
        }
    }

    /// The turn whose commit a read of this alert must wait for, or `nil` when its last change is committed.
    func turn(of sequence: UInt64) -> UInt64? {
        state.withLock { $0.unsettled[sequence] }
    }

    /// The last turn appended.
    var lastAppended: UInt64 { state.withLock { $0.appended } }

    /// Holds `effects` until `turn` commits; returns them instead when it has, with the outcome to run them with.
    func release(_ effects: [CommitEffect], after turn: UInt64) -> (effects: [CommitEffect], failure: JournalFailure?) {
        state.withLock { state in
            if let failure = state.failure, turn > state.committed { return (effects, failure) }
            guard turn > state.committed else { return (effects, nil) }
            if state.waiting[turn] == nil {
                state.waiting[turn] = effects
            } else {
                state.waiting[turn]!.append(contentsOf: effects)
            }
            return ([], nil)
        }
    }

    /// Records the journal's outcome for `turn` (called in turn order) and runs what waited for it.
    func commit(_ turn: UInt64, _ failure: JournalFailure?) {
        let (due, outcome) = state.withLock { state -> ([CommitEffect], JournalFailure?) in
            if let failure, state.failure == nil { state.failure = failure }
            if state.failure == nil {
                state.committed = max(state.committed, turn)
                state.indexes.removeThrough(turn) { _, index in state.durableIndex = index }
                state.marks.removeThrough(turn) { _, sequence in
                    if state.unsettled[sequence] == turn { state.unsettled[sequence] = nil }
                }
            }
            let due = state.waiting.removeValue(forKey: turn) ?? []
            guard state.failure != nil else { return (due, nil) }
            // Nothing waits past a failure: later turns fail too.
            let rest = state.waiting.values.flatMap { $0 }
            state.waiting = [:]
            return (due + rest, state.failure)
        }
        for effect in due { effect(outcome) }
    }
}

/// Values tagged with a key that never decreases as they are added (a store turn, an event index), removed from the
/// oldest key on: one array and a head index, so adding a value costs no allocation of its own.
public struct KeyedQueue<Value> {
    private var items: [(key: UInt64, value: Value)] = []
    private var head = 0

    public init() {}

    /// Adds `value` under `key`, which is no smaller than any key added before.
    public mutating func append(_ value: Value, key: UInt64) {
        items.append((key, value))
    }

    /// Removes the values of every key up to `key`, oldest first, handing each with its key to `body`.
    public mutating func removeThrough(_ key: UInt64, _ body: (UInt64, Value) -> Void) {
        while head < items.count, items[head].key <= key {
            body(items[head].key, items[head].value)
            head += 1
        }
        if head == items.count {
            items.removeAll(keepingCapacity: items.count <= 4096)
            head = 0
        } else if head > 4096 && head > items.count / 2 {
            items.removeFirst(head)
            head = 0
        }
    }
}
