/// One transaction a store's authority committed with changes in it, for `/metrics`.
public struct AuthorityCommit: Sendable {
    /// Seconds from the transaction's start to its commit (the database's flush included).
    public var seconds: Double
    /// The changes it held (creates and resolutions, committed or refused): the group commit's batch.
    public var changes: Int

    public init(seconds: Double, changes: Int) {
        self.seconds = seconds
        self.changes = changes
    }
}
