import Locking

/// A value behind a lock that closures can share (a `Lock` itself cannot be captured: it is not copyable).
final class Shared<Value: Sendable>: Sendable {
    private let lock: Lock<Value>

    init(_ value: Value) {
        lock = Lock(value)
    }

    var value: Value { lock.withLock { $0 } }

    /// Runs `body` with the lock held.
    func update<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
        lock.withLock { body(&$0) }
    }
}
