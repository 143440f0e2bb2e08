import AlertModel

/// Something the store's one timer must do at an instant.
struct Deadline: Comparable, Sendable {
    /// What to do.
    enum Kind: Hashable, Sendable {
        /// Expire the alert with this sequence number, if still pending.
        case expiry(UInt64)
        /// Time out the waiter with this id, if still waiting.
        case waiter(UInt64)
        /// Drop resolved alerts whose retention has passed.
        case retention
    }

    /// When to do it.
    var instant: ContinuousClock.Instant
    /// What to do.
    var kind: Kind

    static func < (lhs: Deadline, rhs: Deadline) -> Bool {
        lhs.instant < rhs.instant
    }
}
