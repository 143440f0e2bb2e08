import AlertCore
import AlertModel
import Dispatch
import Locking

/// The hand-off between `append` (any thread, usually the store's executor) and the writer thread: appends queue
/// under a lock; the writer takes everything queued at once, so batches form while the previous commit runs.
final class CommitQueue: Sendable {
    /// One `append` call.
    struct Entry: Sendable {
        var records: [JournalRecord]
        var committed: @Sendable (JournalFailure?) -> Void
    }

    private struct State {
        var pending: [Entry] = []
        /// The writer waits on `wake`; the append that clears this signals it, once.
        var writerWaiting = false
        /// `close()` was called: the writer finishes what is queued, then exits.
        var closing = false
        /// The writer has exited: appends are refused.
        var closed = false
        /// The failure that stopped writing.
        var failure: JournalFailure?
    }

    private let state = Lock(State())
    private let wake = DispatchSemaphore(value: 0)

    /// The failure that stopped writing, if any.
    var failure: JournalFailure? { state.withLock { $0.failure } }

    /// Queues an entry for the writer; false when the writer has exited.
    func append(_ entry: Entry) -> Bool {
        let (accepted, signal) = state.withLock { state -> (Bool, Bool) in
            guard !state.closed else { return (false, false) }
            state.pending.append(entry)
            let signal = state.writerWaiting
            state.writerWaiting = false
            return (true, signal)
        }
        if signal { wake.signal() }
        return accepted
    }

    /// Everything queued, waiting for some when none is; nil once closing and nothing is left (the writer exits).
    func take() -> [Entry]? {
        while true {
            let (batch, exit) = state.withLock { state -> ([Entry], Bool) in
                guard state.pending.isEmpty else {
                    defer { state.pending = [] }
                    return (state.pending, false)
                }
                if state.closing {
                    state.closed = true
                    return ([], true)
                }
                state.writerWaiting = true
                return ([], false)
            }
            if exit { return nil }
            if !batch.isEmpty { return batch }
            wake.wait()
        }
    }

    /// Records the failure that stops writing (the first one stays).
    func fail(_ failure: JournalFailure) {
        state.withLock { state in
            if state.failure == nil { state.failure = failure }
        }
    }

    /// Tells the writer to finish what is queued and exit; false when already told.
    func close() -> Bool {
        let (first, signal) = state.withLock { state -> (Bool, Bool) in
            guard !state.closing else { return (false, false) }
            state.closing = true
            let signal = state.writerWaiting
            state.writerWaiting = false
            return (true, signal)
        }
        if signal { wake.signal() }
        return first
    }
}
