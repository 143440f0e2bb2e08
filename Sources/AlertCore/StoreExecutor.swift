import AlertModel
import Dispatch
import Locking

#if canImport(Glibc)
import Glibc
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
