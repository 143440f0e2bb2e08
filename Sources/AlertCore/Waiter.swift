import AlertModel

/// A wait registered with the store: `waitForResolution`/`waitForChange` (an async caller suspended on a continuation)
/// or `whenResolved`/`whenChanged` (a callback, no task).
struct Waiter: Sendable {
    /// What the waiter waits for.
    enum Target: Sendable, Equatable {
        /// The resolution of the alert with this sequence number.
        case resolution(UInt64)
        /// A change index greater than this one.
        case change(after: UInt64)
    }

    /// What it waits for.
    var target: Target
    /// Called exactly once, on the store's executor: the store removes the waiter from its table before calling it.
    var wake: @Sendable (WaitOutcome) -> Void
}
