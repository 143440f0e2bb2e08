import Foundation

extension AlertStore {
    /// Sets who is told about each resolved alert that has a callback URL (the webhook sender).
    /// - Parameter observer: called on the store's executor; must return quickly.
    public func setResolutionObserver(_ observer: @escaping @Sendable (Alert) -> Void) {
        resolutionObserver = observer
    }

    /// Records one delivery attempt of an alert's result to its callback URL.
    ///
    /// - Parameters:
    ///   - id: The alert.
    ///   - error: Why the attempt failed, or `nil` when the receiver accepted it.
    ///   - final: Whether no more attempts will be made.
    /// - Returns: The delivery as recorded, or `nil` when the alert is gone or has no callback.
    @discardableResult
    public func recordDelivery(of id: AlertID, error: String?, final: Bool) -> WebhookDelivery? {
        guard var (_, alert) = records.record(id), var delivery = alert.delivery else {
            return nil
        }
        delivery.attempts += 1
        delivery.lastAttemptAt = Date()
        delivery.lastError = error
        delivery.state = error == nil ? .delivered : (final ? .failed : .pending)
        alert.delivery = delivery
        records.store(alert)
        return delivery
    }
}
