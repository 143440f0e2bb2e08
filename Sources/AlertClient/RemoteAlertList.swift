/// A page of alerts with the store's change index (`AlertList` in `openapi.yaml`).
public struct RemoteAlertList: Codable, Sendable, Equatable {
    /// The store's change index; pass it back to `AlertClient.list(index:wait:)` to block until something changes.
    public var index: UInt64
    /// Alerts, oldest first. Secure values are `nil`.
    public var alerts: [RemoteAlert]

    /// - Parameters:
    ///   - index: The change index.
    ///   - alerts: The alerts, oldest first.
    public init(index: UInt64, alerts: [RemoteAlert]) {
        self.index = index
        self.alerts = alerts
    }
}
