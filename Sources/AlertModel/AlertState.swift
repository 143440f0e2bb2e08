/// Whether an alert still waits for its answer.
public enum AlertState: String, Sendable {
    /// Nobody has answered, dismissed or expired it yet.
    case pending
    /// It has a result; the result never changes again.
    case resolved
}
