import AlertModel

/// What one store turn (one call holding the store) changed: the records the journal makes durable, and the effects
/// released after they are.
struct StoreTurn {
    var records: [JournalRecord] = []
    var effects: [CommitEffect] = []

    var isEmpty: Bool { records.isEmpty && effects.isEmpty }
}
