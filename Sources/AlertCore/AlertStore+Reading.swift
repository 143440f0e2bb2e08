extension AlertStore {
    /// The alert with this id as it is now, read without waiting for the actor: for plain
    /// reads on a hot path. It may be a moment behind a change still in progress on the actor.
    ///
    /// - Parameter id: The alert's id.
    /// - Returns: The alert, or `nil` when no alert has the id (or it was dropped by retention).
    public nonisolated func snapshot(of id: AlertID) -> Alert? {
        records.record(id)?.alert
    }
}
