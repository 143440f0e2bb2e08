import AlertModel

/// Per owner (a producer's token name), the index of its newest event and of its newest event the history has
/// dropped: what the API needs to show a producer an index that moves only with its own alerts, and to tell
/// whether a producer's cursor lost any of its own events. Alerts without an owner leave no mark.
struct OwnerMarks {
    private var marks: [String: (newest: UInt64, dropped: UInt64)] = [:]

    /// Notes an event appended to the history.
    mutating func appended(_ event: AlertEvent) {
        guard let owner = event.alert.owner else { return }
        marks[owner, default: (0, 0)].newest = event.index
    }

    /// Notes an event the history dropped to make room.
    mutating func dropped(_ event: AlertEvent) {
        guard let owner = event.alert.owner else { return }
        marks[owner, default: (0, 0)].dropped = event.index
    }

    /// The index of `owner`'s newest event; 0 when it has none.
    func newest(of owner: String) -> UInt64 { marks[owner]?.newest ?? 0 }

    /// The index of `owner`'s newest event that the history no longer holds; 0 when none.
    func dropped(of owner: String) -> UInt64 { marks[owner]?.dropped ?? 0 }
}
