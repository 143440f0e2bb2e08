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
        defer { endTurn() }
        guard fence?.failure == nil, let (sequence, stored) = records.record(id), var delivery = stored.delivery else {
            return nil
        }
        var alert = stored
        delivery.attempts += 1
        delivery.lastAttemptAt = .storeNow
        delivery.lastError = error
        delivery.state = error == nil ? .delivered : (final ? .failed : .pending)
        alert.delivery = delivery
        willChange(sequence)
        records.store(alert)
        journalize(.delivery(sequence: sequence, delivery))
        return delivery
    }
}
