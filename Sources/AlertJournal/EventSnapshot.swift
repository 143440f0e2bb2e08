import AlertCore
import AlertModel

/// The alert as an event showed it, rebuilt from the alert's row: an event row names its alert rather than holding a
/// copy of it.
///
/// After it is created, an alert changes by its votes, by its escalation steps (each records its event's index), by its
/// result, set once, at its resolution event, and by its webhook delivery, whose attempts start only after that event
/// (`AlertStore.settle` then `startDelivery`). So an event showed the row as it is now, without the escalation steps
/// after it, without the result for `created`, and with the delivery as it was before any attempt.
enum EventSnapshot {
    static func alert(_ stored: Alert, at kind: AlertEvent.Kind, index: UInt64) -> Alert {
        var alert = stored.before(escalationsAfter: index)
        if kind == .created { alert.result = nil }
        alert.delivery = stored.delivery.map { WebhookDelivery(url: $0.url) }
        return alert
    }
}
