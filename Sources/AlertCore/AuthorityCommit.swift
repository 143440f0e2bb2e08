import AlertModel

/// One transaction a store's authority committed with changes in it, for `/metrics`.
public struct AuthorityCommit: Sendable {
    /// Seconds from the transaction's start until it is on the database's disk (the wait for other instances'
    /// commits and the flush included).
    public var seconds: Double
    /// The changes it held (creates and resolutions, committed or refused): the group commit's batch.
    public var changes: Int

    public init(seconds: Double, changes: Int) {
        self.seconds = seconds
        self.changes = changes
    }
}
