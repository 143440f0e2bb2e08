import AlertModel

extension AlertStore {
    /// Limits and retention for an `AlertStore`.
    public struct Configuration: Sendable {
        /// The most pending alerts; `create` throws `tooManyPending` beyond.
        public var maxPending: Int
        /// The most resolved alerts kept; the oldest resolutions are dropped first.
        public var maxResolved: Int
        /// How long a resolved alert is kept.
        public var retention: Duration
        /// Size limits for `create`.
        public var limits: StoreLimits
        /// How many recent events are kept for resuming event streams; older cursors are gone.
        public var eventHistory: Int

        /// Creates a configuration; the defaults are the contract's.
        ///
        /// - Parameters:
        ///   - maxPending: The most pending alerts.
        ///   - maxResolved: The most resolved alerts kept.
        ///   - retention: How long a resolved alert is kept.
        ///   - limits: Size limits for `create`.
        ///   - eventHistory: How many recent events are kept for resuming event streams.
        public init(
            maxPending: Int = 100_000,
            maxResolved: Int = 10_000,
            retention: Duration = .seconds(3600),
            limits: StoreLimits = StoreLimits(),
            eventHistory: Int = 10_000
        ) {
            self.maxPending = maxPending
            self.maxResolved = maxResolved
            self.retention = retention
            self.limits = limits
            self.eventHistory = eventHistory
        }
    }
}
