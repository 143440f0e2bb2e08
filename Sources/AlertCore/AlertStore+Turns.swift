import AlertModel
import Foundation

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
