import Dispatch
import Foundation
import Locking

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The serial executor of `AlertStore`: jobs run one at a time, and a caller on any thread may also run a short
/// synchronous piece of store work at once, without a task, when no job runs (`enter()`/`leave()`).
///
/// That is what lets a request that needs no waiting (create, answer, dismiss, list) be answered on the HTTP thread
/// that parsed it: an actor hop costs a suspended connection, a task and a resume, about a third of a create.
/// Isolation holds as for any actor: the `running` flag admits one thread at a time, whether it drains jobs or
/// runs inline work, and `checkIsolated()` lets `assumeIsolated` see the inline thread as the actor's.
final class StoreExecutor: SerialExecutor {
    private struct State {
        /// Whether a thread is running jobs or inline work now.
        var running = false
        /// The thread running inline work, for `checkIsolated()`.
        var inlineThread: pthread_t?
        /// Jobs enqueued while `running`, oldest first.
        var queue: [UnownedJob] = []
        var head = 0
        /// Effects of finished store turns, run by the holding thread once it is out of the store's work.
        var ready: [CommitEffect] = []

        mutating func next() -> UnownedJob? {
            guard head < queue.count else {
                queue.removeAll(keepingCapacity: queue.count <= 1024)
                head = 0
                running = false
                return nil
            }
            defer { head += 1 }
            return queue[head]
        }
    }

    private let state = Lock(State())

    /// Runs the job on this thread when the store is idle (as the default actor does when it can take over the
    /// calling thread), else queues it for the thread that is running.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let start = state.withLock { state in
            guard !state.running else {
                state.queue.append(job)
                return false
            }
            state.running = true
            return true
        }
        guard start else { return }
        // The runtime holds this executor unowned. A job may drop the last reference to the store, and with it
        // this executor, while this thread still drains: keep it alive until the drain is over (found by
        // `make fuzz`; `withExtendedLifetime(self)` is not enough, the optimizer elides its retain).
        let retained = Unmanaged.passRetained(self)
        defer { retained.release() }
        job.runSynchronously(on: asUnownedSerialExecutor())
        runReady()
        drain()
    }

    /// Takes the executor for inline work on this thread when no job and no other inline work runs; false
    /// otherwise, at once: the caller then goes through a task (`AlertStore.inline(_:)`). No spin and no yield:
    /// inline work holds the store for a few microseconds, and a thread that waited for it would hand its core to
    /// a client on a shared machine.
    func enter() -> Bool {
        state.withLock { state in
            guard !state.running else { return false }
            state.running = true
            state.inlineThread = pthread_self()
            return true
        }
    }

    /// Gives the executor back after inline work, then runs the effects that work released (on this thread, outside
    /// the store); jobs queued meanwhile run on a Dispatch thread, never on the caller's (an HTTP thread).
    func leave() {
        let (queued, effects) = state.withLock { state in
            state.inlineThread = nil
            let effects = state.ready
            state.ready = []
            guard state.head < state.queue.count else {
                state.running = false
                return (false, effects)
            }
            return (true, effects)
        }
        HeldCalls.collecting { for effect in effects { effect(nil) } }  // their resumes in one burst
        if queued { DispatchQueue.global().async { self.drain() } }
    }

    /// Queues effects to run once the current store work is over: after inline work gives the store back, or after
    /// the job that released them. Called only by the thread holding the store.
    func afterHold(_ effects: [CommitEffect]) {
        state.withLock { $0.ready.append(contentsOf: effects) }
    }

    /// Runs the effects released by the work that just finished.
    private func runReady() {
        let effects = state.withLock { state in
            defer { state.ready = [] }
            return state.ready
        }
        HeldCalls.collecting { for effect in effects { effect(nil) } }  // their resumes in one burst
    }

    /// Runs queued jobs until there are none, and each job's released effects after it; `running` is held
    /// throughout.
    private func drain() {
        while let job = state.withLock({ $0.next() }) {
            job.runSynchronously(on: asUnownedSerialExecutor())
            runReady()
        }
    }

    /// Traps unless this thread runs inline work now (jobs are known to the runtime without asking).
    func checkIsolated() {
        let isolated = state.withLock { state in
            state.inlineThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
        }
        precondition(isolated, "AlertStore used off its executor")
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}

/// The store's write path: each change, made while the store is held, yields its journal records and its effects;
/// the turn's end hands the records to the journal and releases the effects once they are durable (memory only:
/// after the hold).
extension AlertStore {
    /// Queues `effect` to run once this turn's changes are durable: at once after the hold when memory only, else
    /// after the journal commits them (or fails to: then it gets the failure).
    func afterCommit(_ effect: @escaping CommitEffect) {
        turn.effects.append(effect)
    }

    /// Wakes a waiter once the turn that woke it is durable; with the journal's failure, as `unavailable`.
    func wake(_ waiter: Waiter, _ outcome: WaitOutcome) {
        let wake = waiter.wake
        afterCommit { failure in wake(failure.map(WaitOutcome.unavailable) ?? outcome) }
    }

    /// Marks an alert as changed by this turn; call before the change is written to the table.
    func willChange(_ sequence: UInt64) {
        fence?.mark(sequence)
    }

    /// Adds a record for the journal, when there is one.
    func journalize(_ record: @autoclosure () -> JournalRecord) {
        guard journal != nil else { return }
        turn.records.append(record())
    }

    /// Throws when the journal failed: the store then takes no more writes.
    func requireWritable() throws(AlertStoreError) {
        if let failure = fence?.failure { throw .unavailable(failure.reason) }
    }

    /// Ends the turn: its records go to the journal, and its effects are released once they are durable. A turn
    /// that changed nothing releases its effects once the last turn appended is durable, since they may show what
    /// it did (a replay, a `409`, a list).
    func endTurn() {
        guard !turn.isEmpty else { return }
        let ended = turn
        turn = StoreTurn()
        guard let journal, let fence else {
            executor.afterHold(ended.effects)
            return
        }
        let number: UInt64
        if ended.records.isEmpty {
            number = fence.lastAppended
        } else {
            number = fence.append(index: changeIndex)
            journal.append(ended.records) { fence.commit(number, $0) }
        }
        let (due, failure) = fence.release(ended.effects, after: number)
        guard !due.isEmpty else { return }
        if let failure {
            // Failed already: nothing will commit, so there is nothing to wait for.
            executor.afterHold(due.map { effect in { _ in effect(failure) } })
        } else {
            executor.afterHold(due)
        }
    }

    /// Whether writes are refused because the journal failed (also before any write: one opened on a full disk), and
    /// why.
    public nonisolated var writeFailure: JournalFailure? {
        fence?.failure ?? journal?.failure ?? authority?.unavailableReason.map(JournalFailure.init(reason:))
    }

    /// The change index up to which events may be shown: the last committed one (the current one when memory only).
    var visibleIndex: UInt64 { fence.map { min($0.durableIndex, changeIndex) } ?? changeIndex }

    static func randomEpoch() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in String(generator.next() as UInt64, radix: 16).leftPadded(to: 16) }.joined()
    }
}

private extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

/// What one store turn (one call holding the store) changed: the records the journal makes durable, and the effects
/// released after they are.
struct StoreTurn {
    var records: [JournalRecord] = []
    var effects: [CommitEffect] = []

    var isEmpty: Bool { records.isEmpty && effects.isEmpty }
}

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
