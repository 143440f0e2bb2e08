import AlertModel
import Foundation

extension AlertStore {
    /// Records one delivery attempt of an alert's result to its callback URL (with an authority, there too: this
    /// cache shows the delivery as this instance made it).
    ///
    /// - Parameters:
    ///   - id: The alert.
    ///   - error: Why the attempt failed, or `nil` when the receiver accepted it.
    ///   - final: Whether no more attempts will be made.
    /// - Returns: The delivery as recorded, or `nil` when the alert is gone or has no callback.
    @discardableResult
    public func recordDelivery(of id: AlertID, error: String?, final: Bool) -> WebhookDelivery? {
        defer { endTurn() }
        authority?.recordDelivery(of: id, error: error, final: final)
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
