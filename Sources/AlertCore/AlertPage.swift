import AlertModel

/// A page of alerts and the store's change index when it was taken.
public struct AlertPage: Sendable {
    /// The alerts, oldest first.
    public var alerts: [Alert]
    /// The store's change index; wait for a change past it with `AlertStore.waitForChange(after:timeout:)`.
    public var index: UInt64

    /// Creates a page.
    ///
    /// - Parameters:
    ///   - alerts: The alerts, oldest first.
    ///   - index: The store's change index.
    public init(alerts: [Alert], index: UInt64) {
        self.alerts = alerts
        self.index = index
    }
}
