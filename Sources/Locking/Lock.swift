// `Lock` is `Synchronization.Mutex`, except in a ThreadSanitizer build (`make tsan` compiles with
// `-DTHREAD_SANITIZER`), where it is a `pthread_mutex_t` that TSan intercepts. On Linux, `Mutex` parks and
// wakes contended threads with futexes in the uninstrumented libswiftSynchronization.so: TSan then misses
// the lock's happens-before edges and reports races on every value a contended lock guards.

#if THREAD_SANITIZER
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a `pthread_mutex_t`, with `Mutex`'s API: the ThreadSanitizer build's `Lock`.
///
/// `@unchecked Sendable` invariant: `value` is only touched inside `withLock`, with `mutex` held.
public final class Lock<Value>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    /// Out of line: TSan reported a race on a zero-size stored property (a `Lock(())`) in every locked access.
    private let value = UnsafeMutablePointer<Value>.allocate(capacity: 1)

    /// - Parameter initialValue: the value the lock guards.
    public init(_ initialValue: sending Value) {
        value.initialize(to: initialValue)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    /// Runs `body` on the value with the lock held.
    /// - Parameter body: reads or changes the value; must not take this lock again.
    public func withLock<Result, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}
#else
import Synchronization

/// A value behind a mutex: `Synchronization.Mutex` (see the top of this file for the ThreadSanitizer build).
public typealias Lock<Value> = Mutex<Value>
#endif
