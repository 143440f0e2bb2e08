import AlertModel

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
    /// Alerts created since the store started.
    public var created: UInt64 = 0
    /// Alerts resolved since the store started, by how they resolved.
    public var resolutions: [Resolution: UInt64] = [:]

    /// Creates statistics.
    ///
    /// - Parameters:
    ///   - pending: Alerts waiting for an answer.
    ///   - resolved: Resolved alerts still kept.
    ///   - waiters: Suspended waits.
    ///   - index: The change index.
    ///   - created: Alerts created since start.
    ///   - resolutions: Alerts resolved since start, by resolution.
    public init(
        pending: Int, resolved: Int, waiters: Int, index: UInt64, created: UInt64 = 0,
        resolutions: [Resolution: UInt64] = [:]
    ) {
        self.pending = pending
        self.resolved = resolved
        self.waiters = waiters
        self.index = index
        self.created = created
        self.resolutions = resolutions
    }
}
