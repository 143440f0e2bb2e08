import AlertModel

/// What a store's authority (the cluster's database) has done since it started, for `/metrics`.
public struct AuthorityStatistics: Sendable, Equatable {
    /// Why changes are refused right now (the database is unreachable), or `nil`.
    public var unavailableReason: String?
    /// Connections to the database made again after one was lost or could not be made.
    public var reconnects: UInt64 = 0
    /// Events other instances committed that this one read after a notification.
    public var eventsByNotification: UInt64 = 0
    /// Events other instances committed that this one read by polling the head (once a second, and after a
    /// reconnect): their notification was lost or came late.
    public var eventsByPolling: UInt64 = 0
    /// Events other instances committed that this one's writer read, after its own commit or for a read that needed
    /// them (a catch-up), before their notification came.
    public var eventsByWriter: UInt64 = 0

    public init() {}
}
