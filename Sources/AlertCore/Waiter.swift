/// A suspended `waitForResolution` or `waitForChange` call.
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
    /// Resumed exactly once: the store removes the waiter from its table before resuming it.
    var continuation: CheckedContinuation<WaitOutcome, Never>
}
