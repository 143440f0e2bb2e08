import AlertCore
import AlertModel

/// The alert as an event showed it, rebuilt from the alert's row: an event row names its alert rather than holding a
/// copy of it.
///
/// After it is created, an alert changes by its votes (each a `voted` event, but the vote that resolves it, which is
/// its `answered` event), by its escalation steps (each records its event's index), by its result, set once, at its
/// resolution event, and by its webhook delivery, whose attempts start only after that event (`AlertStore.settle` then
/// `startDelivery`). So an event showed the row as it is now, without the escalation steps after it, without the
/// result and the votes after it unless it is the resolution, and with the delivery as it was before any attempt.
enum EventSnapshot {
    /// - Parameters:
    ///   - stored: the alert's row.
    ///   - kind: the event's kind.
    ///   - index: the event's index.
    ///   - votedAfter: how many `voted` events of this alert come after this one.
    static func alert(_ stored: Alert, at kind: AlertEvent.Kind, index: UInt64, votedAfter: Int) -> Alert {
        var alert = stored.before(escalationsAfter: index)
        switch kind {
        case .answered, .dismissed, .expired:
            break
        case .created, .voted, .escalated:
            // Pending then. A quorum alert answered was answered by a vote (the last), without a `voted` event.
            alert.result = nil
            let resolvingVote = stored.result?.resolution == .answered && !stored.votes.isEmpty ? 1 : 0
            alert.votes.removeLast(min(alert.votes.count, votedAfter + resolvingVote))
        }
        alert.delivery = stored.delivery.map { WebhookDelivery(url: $0.url) }
        return alert
    }
}
