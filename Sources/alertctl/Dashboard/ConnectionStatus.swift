/// Whether the dashboard hears from alertd.
enum ConnectionStatus: Sendable, Equatable {
    /// Before the first list arrives.
    case connecting
    case connected
    /// The last list query failed; the next try comes after `retryIn`.
    case reconnecting(reason: String, retryIn: Duration)
}
