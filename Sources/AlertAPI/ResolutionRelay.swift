import AlertCore
import Locking

/// Hands resolved alerts from the store to the webhook sender, which is made after the store.
///
/// It holds the sender itself (weakly), not a closure: a function value behind the lock was re-abstracted on every
/// `withLock` read and written back one thunk deeper, so each forward grew a chain of thunks until the stack
/// overflowed.
final class ResolutionRelay: Sendable {
    /// A nominal box, so that reading the lock's value copies a reference and nothing else.
    private struct Target {
        weak var sender: WebhookSender?
    }

    private let target = Lock(Target())

    /// Sets where alerts go; the relay does not keep `sender` alive.
    func connect(_ sender: WebhookSender) {
        target.withLock { $0.sender = sender }
    }

    /// Passes one resolved alert on.
    func forward(_ alert: Alert) {
        target.withLock { $0.sender }?.deliver(alert)
    }
}
