import AlertCore
import AlertModel

/// What the journal has done since it opened, for metrics and `/healthz`.
public struct JournalStatistics: Sendable, Equatable {
    /// Transactions committed.
    public var commits: UInt64 = 0
    /// `append` calls (store turns) committed.
    public var appends: UInt64 = 0
    /// Records committed.
    public var records: UInt64 = 0
    /// Seconds spent in committed transactions, summed.
    public var commitSeconds: Double = 0
    /// The size of the write-ahead log file in bytes (0 when there is none).
    public var walBytes: Int64 = 0
    /// Checkpoints run (passive and truncating).
    public var checkpoints: UInt64 = 0
    /// The failure that stopped the journal, if one did; the journal then takes no more writes.
    public var failure: JournalFailure?

    public init() {}
}
