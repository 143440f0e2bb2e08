import Locking

/// A continuation resumed once, by whichever of several threads gets there first; later calls do nothing.
final class ReplyOnce<Value: Sendable>: Sendable {
    private let continuation: Lock<CheckedContinuation<Value, Never>?>

    init(_ continuation: CheckedContinuation<Value, Never>) {
        self.continuation = Lock(continuation)
    }

    /// Resumes the waiter with `value`, unless it was resumed already.
    func resume(_ value: Value) {
        continuation.withLock { continuation in
            defer { continuation = nil }
            return continuation
        }?.resume(returning: value)
    }
}
