import AlertCore
import Locking

/// Hands resolved alerts from the store to the webhook sender, which is made after the store.
final class ResolutionRelay: Sendable {
    private let target = Lock<(@Sendable (Alert) -> Void)?>(nil)

    /// Sets where alerts go.
    func connect(_ deliver: @escaping @Sendable (Alert) -> Void) {
        target.withLock { $0 = deliver }
    }

    /// Passes one resolved alert on.
    func forward(_ alert: Alert) {
        target.withLock { $0 }?(alert)
    }
}
