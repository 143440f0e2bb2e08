import JSON
import Locking

/// What the crash test's clients were told: every entry comes from a response received whole, or an event read
/// off the stream, so alertd must keep it unchanged across every crash. Checks that need only the ledger (a result
/// or an event that changed between two sightings) fail as entries arrive.
final class CrashLedger: Sendable {
    /// An acknowledged create.
    struct Creation: Sendable {
        let id: String
        /// The request as sent: a retry with `key` sends it again.
        let body: String
        let key: String?
        /// The alert the `201` (or a replay's `200`) carried.
        let alert: JSONValue
        /// Whether it has a text field (an answer then sends a value).
        let hasField: Bool
        /// What acknowledged it, e.g. "201 (life 3)".
        let source: String
    }

    /// A Result seen for an alert, and where.
    struct Outcome: Sendable {
        let result: JSONValue
        let source: String
    }

    /// An event read off a stream, and by whom.
    struct SeenEvent: Sendable {
        let type: String
        let alert: JSONValue
        let source: String
    }

    /// What the ledger held at one moment (for a check after a restart).
    struct Snapshot: Sendable {
        var creations: [Creation]
        var outcomes: [String: Outcome]
        /// The ids in `outcomes`, in the order their Results were first seen.
        var resolvedOrder: [String]
        var events: [UInt64: SeenEvent]
        var highestEvent: UInt64
    }

    private struct State {
        var creations: [Creation] = []
        /// Where each id is in `creations`.
        var positions: [String: Int] = [:]
        /// Created, no Result seen yet: what responders and waiters choose from.
        var open: [String] = []
        var outcomes: [String: Outcome] = [:]
        var resolvedOrder: [String] = []
        var events: [UInt64: SeenEvent] = [:]
        var highestEvent: UInt64 = 0
        var failures: [String] = []
        var counts: [String: Int] = [:]
    }

    private let state = Lock(State())

    /// Records an acknowledged create.
    func created(_ creation: Creation) {
        state.withLock { state in
            guard state.positions[creation.id] == nil else { return }
            state.positions[creation.id] = state.creations.count
            state.creations.append(creation)
            if state.outcomes[creation.id] == nil { state.open.append(creation.id) }
            state.counts["created", default: 0] += 1
            if creation.key != nil { state.counts["created with a key", default: 0] += 1 }
        }
    }

    /// Records a Result seen for `id`; a Result different from one seen before is a failure (an alert resolves
    /// exactly once, and what was shown must stay).
    func resolved(_ id: String, _ result: JSONValue, source: String) {
        state.withLock { state in
            if let known = state.outcomes[id] {
                if known.result != result {
                    state.failures.append("alert \(id): its Result changed: \(known.source) showed "
                        + "\(known.result.text), \(source) shows \(result.text)")
                }
                return
            }
            state.outcomes[id] = Outcome(result: result, source: source)
            state.resolvedOrder.append(id)
            state.counts[(result["resolution"]?.stringValue ?? "?"), default: 0] += 1
        }
    }

    /// Records an event read off a stream: an id seen before with other content is a failure (an id reused, or an
    /// event that changed). A resolution's Result counts as seen too.
    func event(_ id: UInt64, type: String, alert: JSONValue, source: String) {
        state.withLock { state in
            if let known = state.events[id] {
                if known.type != type || known.alert != alert {
                    state.failures.append("event \(id): \(known.source) read \(known.type) \(known.alert.text); "
                        + "\(source) read \(type) \(alert.text)")
                }
                return
            }
            state.events[id] = SeenEvent(type: type, alert: alert, source: source)
            state.highestEvent = max(state.highestEvent, id)
            state.counts["events", default: 0] += 1
        }
        if type != "created", let alertID = alert["id"]?.stringValue, let result = alert["result"], !result.isNull {
            // Events carry secure values as null, as lists do; the alerts here have no secure field.
            resolved(alertID, result, source: "event \(id) (\(source))")
        }
    }

    /// Records a failed check.
    func fail(_ text: String) {
        state.withLock { $0.failures.append(text) }
    }

    /// Counts something that happened (for the summary).
    func count(_ name: String, _ amount: Int = 1) {
        state.withLock { $0.counts[name, default: 0] += amount }
    }

    /// An acknowledged alert with no Result seen yet, from the most recent few (so that clients race on it), or nil.
    func openAlert() -> Creation? {
        state.withLock { state in
            state.open.removeAll { state.outcomes[$0] != nil }
            guard let id = state.open.suffix(24).randomElement() else { return nil }
            return state.positions[id].map { state.creations[$0] }
        }
    }

    /// Takes an alert out of what clients choose from (its check failed: more requests would only repeat it).
    func abandon(_ id: String) {
        state.withLock { $0.open.removeAll { $0 == id } }
    }

    /// How many creates were acknowledged.
    var creationCount: Int { state.withLock { $0.creations.count } }

    /// Everything acknowledged so far.
    func snapshot() -> Snapshot {
        state.withLock {
            Snapshot(creations: $0.creations, outcomes: $0.outcomes, resolvedOrder: $0.resolvedOrder, events: $0.events,
                     highestEvent: $0.highestEvent)
        }
    }

    var failures: [String] { state.withLock { $0.failures } }

    var counts: [String: Int] { state.withLock { $0.counts } }
}
