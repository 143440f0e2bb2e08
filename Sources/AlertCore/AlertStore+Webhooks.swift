import Foundation

extension AlertStore {
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
