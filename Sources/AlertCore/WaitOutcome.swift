/// How a suspended wait ends; the store resumes each waiter with exactly one.
enum WaitOutcome: Sendable {
    /// The alert, resolved or (after a timeout or cancellation) still pending.
    case alert(Alert)
    /// The change index.
    case index(UInt64)
    /// The alert is gone.
    case notFound
    /// The store shut down.
    case shuttingDown
}
