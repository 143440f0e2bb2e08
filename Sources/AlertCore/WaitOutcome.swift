import AlertModel

/// How a wait ends; the store wakes each waiter with exactly one.
public enum WaitOutcome: Sendable {
    /// The alert, resolved or (after a time-out or cancellation) still pending.
    case alert(Alert)
    /// The change index.
    case index(UInt64)
    /// The alert is gone.
    case notFound
    /// The store shut down.
    case shuttingDown
    /// The change that would have woken the waiter could not be made durable (the journal failed).
    case unavailable(JournalFailure)
}
