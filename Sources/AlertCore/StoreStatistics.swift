/// Counts describing an `AlertStore` at one moment.
public struct StoreStatistics: Sendable, Equatable {
    /// Alerts waiting for an answer.
    public var pending: Int
    /// Resolved alerts still kept.
    public var resolved: Int
    /// Suspended `waitForResolution` and `waitForChange` calls.
    public var waiters: Int
    /// The change index.
    public var index: UInt64

    /// Creates statistics.
    ///
    /// - Parameters:
    ///   - pending: Alerts waiting for an answer.
    ///   - resolved: Resolved alerts still kept.
    ///   - waiters: Suspended waits.
    ///   - index: The change index.
    public init(pending: Int, resolved: Int, waiters: Int, index: UInt64) {
        self.pending = pending
        self.resolved = resolved
        self.waiters = waiters
        self.index = index
    }
}
