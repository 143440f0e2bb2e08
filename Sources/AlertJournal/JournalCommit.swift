/// One committed transaction, as `SQLiteJournal.observeCommits` reports it.
public struct JournalCommit: Sendable, Equatable {
    /// From `BEGIN IMMEDIATE` to the end of `COMMIT` (the flush included), in seconds.
    public var seconds: Double
    /// How many `append` calls (store turns) the transaction held: the batch size.
    public var appends: Int
    /// How many records it held.
    public var records: Int

    public init(seconds: Double, appends: Int, records: Int) {
        self.seconds = seconds
        self.appends = appends
        self.records = records
    }
}
