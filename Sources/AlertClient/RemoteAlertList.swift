/// A page of alerts with the store's change index (`AlertList` in `openapi.yaml`), or from
/// `AlertClient.listAll`, every page of a list.
public struct RemoteAlertList: Codable, Sendable, Equatable {
    /// The store's change index; pass it back to `AlertClient.list(index:wait:)` to block until something changes.
    /// From `listAll`, the first page's: every change after it, also one made while the later pages were read,
    /// wakes a blocking query with it.
    public var index: UInt64
    /// Alerts, oldest first. Secure values are `nil`.
    public var alerts: [RemoteAlert]
    /// Set when alerts follow these (the page ended at its `limit` or at 1 MiB): pass it as `after` for the next
    /// page. `nil` when the list is complete.
    public var next: UInt64?

    /// - Parameters:
    ///   - index: The change index.
    ///   - alerts: The alerts, oldest first.
    ///   - next: Where the next page starts (`after`), or `nil` when none follows.
    public init(index: UInt64, alerts: [RemoteAlert], next: UInt64? = nil) {
        self.index = index
        self.alerts = alerts
        self.next = next
    }
}
