import AlertCore
import Locking
import MicroHTTP

/// The bodies of woken long-polls, rendered once per alert and redaction: when an alert resolves, every waiter on it
/// is woken in one go on the store's executor, and all but the first reuse the first one's bytes.
///
/// One entry per kind (the alert, its result) and redaction (secrets hidden or shown); a waiter woken with a different
/// alert (another one, or the same one changed) renders afresh and replaces the entry. Comparing two copies of one
/// `Alert` costs little: their strings and arrays share storage.
final class WakeRenders: Sendable {
    private struct Entry {
        var alert: Alert
        var response: HTTPResponse
    }

    /// Indexed by `slot(result:redacted:)`.
    private let entries = Lock<[Entry?]>([nil, nil, nil, nil])

    /// `GET /v1/alerts/{id}`'s body: the alert, secure values hidden unless `caller` may see them.
    func alert(_ alert: Alert, for caller: Caller) -> HTTPResponse {
        let redacted = !caller.seesSecrets(of: alert)
        return shared(alert, slot: redacted ? 1 : 0) { .json(200, alert: alert, for: caller) }
    }

    /// `GET /v1/alerts/{id}/response`'s body: the result (204 while pending), secure values hidden unless `caller`
    /// may see them.
    func result(of alert: Alert, for caller: Caller) -> HTTPResponse {
        let redacted = !caller.seesSecrets(of: alert)
        return shared(alert, slot: redacted ? 3 : 2) { .json(resultOf: alert, for: caller) }
    }

    private func shared(_ alert: Alert, slot: Int, _ render: () -> HTTPResponse) -> HTTPResponse {
        if let hit = entries.withLock({ entries in entries[slot].flatMap { $0.alert == alert ? $0.response : nil } }) {
            return hit
        }
        let response = render()
        entries.withLock { $0[slot] = Entry(alert: alert, response: response) }
        return response
    }
}
