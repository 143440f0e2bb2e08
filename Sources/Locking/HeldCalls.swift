#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Calls a thread holds back while it runs a batch of work, made together when the batch ends.
///
/// The transport resumes a suspended libmicrohttpd connection for every reply that was waiting (a durable create,
/// a woken long-poll, an event stream's next event). libmicrohttpd 0.9.75 handles resumes by walking every suspended
/// connection of the daemon, under a mutex each resume also takes: resumes made one by one while replies are still
/// being rendered each start another walk, so with 5,000 long-polls held a durable create cost 1.6× the server CPU
/// (the walk was 20% of it, docs/PERFORMANCE.md). The threads that run many replies at once (the journal's writer after
/// a commit, the thread that gives the store back) run them inside `collecting(_:)`, and the transport makes its
/// resumes through `call(_:)`: they then come in one burst, after every reply of the batch is ready, and one walk
/// serves them.
public enum HeldCalls {
    /// Runs `body`; the `call(_:)`s it makes on this thread run when it returns, in order. Nested batches end with
    /// the outermost.
    public static func collecting(_ body: () -> Void) {
        let batch = Batch.current
        batch.depth += 1
        body()
        batch.depth -= 1
        guard batch.depth == 0 else { return }
        while !batch.calls.isEmpty {  // a held call may hold more: they run too
            let calls = batch.calls
            batch.calls = []
            for call in calls { call() }
        }
    }

    /// Runs `work` now, or when the batch this thread is collecting ends.
    public static func call(_ work: @escaping () -> Void) {
        let batch = Batch.current
        if batch.depth == 0 { work() } else { batch.calls.append(work) }
    }

    /// One thread's held calls. Only its own thread reaches it (through thread-specific data), so it needs no lock.
    private final class Batch {
        var depth = 0
        var calls: [() -> Void] = []

        static let key: pthread_key_t = {
            var key = pthread_key_t()
            pthread_key_create(&key) { pointer in
                if let pointer { Unmanaged<Batch>.fromOpaque(pointer).release() }
            }
            return key
        }()

        static var current: Batch {
            if let pointer = pthread_getspecific(key) { return Unmanaged<Batch>.fromOpaque(pointer).takeUnretainedValue() }
            let batch = Batch()
            pthread_setspecific(key, Unmanaged.passRetained(batch).toOpaque())
            return batch
        }
    }
}
