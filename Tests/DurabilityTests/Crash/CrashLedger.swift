import JSON
import Locking

/// What the crash test's clients were told: every entry comes from a response received whole, or an event read
/// off the stream, so alertd must keep it unchanged across every crash. Checks that need only the ledger (a result,
/// an event or a quorum alert's votes that changed between two sightings) fail as entries arrive.
final class CrashLedger: Sendable {
    /// Which clients an acknowledged alert is for.
    enum Pool: Sendable {
        /// Responders answer or dismiss it, waiters long-poll it.
        case answers
        /// A quorum alert: voters vote on it (or its producer dismisses it).
        case votes
        /// Nobody: a rule answers it (or is about to).
        case none
    }

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

    /// The most votes seen on a quorum alert (every reply, Result and event shows a beginning of the same list).
    struct Votes: Sendable {
        let votes: [JSONValue]
        let source: String
    }

    /// An acknowledged rule: its `201`, and its delete once sent and once acknowledged.
    struct Rule: Sendable {
        /// The rule the `201` carried, without `answered`.
        let rule: JSONValue
        let source: String
        /// Why it may or may not be there: a delete was sent, and no answer to it has come back yet.
        var deleting = false
        /// What acknowledged its delete (`200`, or `404` to a retry of a delete cut off).
        var deleted: String?
    }

    /// An alert a rule answered: at its create, or when the rule was made.
    struct RuleAnswer: Sendable {
        let id: String
        let rule: String
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
        var votes: [String: Votes]
        /// The ids in `votes`, once each time their votes grew.
        var votedOrder: [String]
        var rules: [String: Rule]
        var ruleAnswers: [RuleAnswer]
    }

    private struct State {
        var creations: [Creation] = []
        /// Where each id is in `creations`.
        var positions: [String: Int] = [:]
        /// Created, no Result seen yet: what responders and waiters choose from.
        var open: [String] = []
        /// Quorum alerts created, no Result seen yet: what voters choose from.
        var ballots: [String] = []
        var outcomes: [String: Outcome] = [:]
        var resolvedOrder: [String] = []
        var events: [UInt64: SeenEvent] = [:]
        var highestEvent: UInt64 = 0
        var votes: [String: Votes] = [:]
        var votedOrder: [String] = []
        var rules: [String: Rule] = [:]
        var ruleAnswers: [RuleAnswer] = []
        var failures: [String] = []
        var counts: [String: Int] = [:]
    }

    private let state = Lock(State())

    /// Records an acknowledged create, for the clients of `pool`.
    func created(_ creation: Creation, for pool: Pool = .answers) {
        state.withLock { state in
            guard state.positions[creation.id] == nil else { return }
            state.positions[creation.id] = state.creations.count
            state.creations.append(creation)
            if state.outcomes[creation.id] == nil {
                switch pool {
                case .answers: state.open.append(creation.id)
                case .votes: state.ballots.append(creation.id)
                case .none: break
                }
            }
            state.counts["created", default: 0] += 1
            if creation.key != nil { state.counts["created with a key", default: 0] += 1 }
        }
    }

    /// Records a Result seen for `id`; a Result different from one seen before is a failure (an alert resolves
    /// exactly once, and what was shown must stay). Its votes count as seen too.
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
        if let votes = result["votes"]?.arrayValue, !votes.isEmpty { voted(id, votes, source: source) }
    }

    /// Records the votes a reply, a Result or an event showed on alert `id`: they must begin with the votes seen
    /// before, or be a beginning of them (votes are only ever added, each once); anything else is a failure.
    func voted(_ id: String, _ votes: [JSONValue], source: String) {
        state.withLock { state in
            guard let known = state.votes[id] else {
                state.votes[id] = Votes(votes: votes, source: source)
                state.votedOrder.append(id)
                return
            }
            let shorter = min(known.votes.count, votes.count)
            guard known.votes.prefix(shorter) == votes.prefix(shorter) else {
                state.failures.append("alert \(id): its votes changed: \(known.source) showed "
                    + "\(JSONValue.array(known.votes).text), \(source) shows \(JSONValue.array(votes).text)")
                return
            }
            if votes.count > known.votes.count {
                state.votes[id] = Votes(votes: votes, source: source)
                state.votedOrder.append(id)
            }
        }
    }

    /// Records an acknowledged rule add (the `201`'s rule, without `answered`).
    func ruleAdded(_ name: String, _ rule: JSONValue, source: String) {
        state.withLock { state in
            state.rules[name] = Rule(rule: rule, source: source)
            state.counts["rules added", default: 0] += 1
        }
    }

    /// Records that a delete of rule `name` is about to be sent: until it is acknowledged the rule may be there
    /// or not.
    func ruleDeleting(_ name: String) {
        state.withLock { $0.rules[name]?.deleting = true }
    }

    /// Whether a delete of rule `name` was sent, by now.
    func ruleDeleteSent(_ name: String) -> Bool {
        state.withLock { $0.rules[name]?.deleting ?? false }
    }

    /// Records an acknowledged delete of rule `name`.
    func ruleDeleted(_ name: String, source: String) {
        state.withLock { state in
            state.rules[name]?.deleted = source
            state.counts["rules deleted", default: 0] += 1
        }
    }

    /// Records that rule `rule` answered alert `id` (its Result names `rule:<rule>` as the responder).
    func ruleAnswered(_ id: String, by rule: String, source: String) {
        state.withLock { state in
            state.ruleAnswers.append(RuleAnswer(id: id, rule: rule, source: source))
            state.counts["rule answers", default: 0] += 1
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
        if type == "voted", let alertID = alert["id"]?.stringValue, let votes = alert["votes"]?.arrayValue {
            voted(alertID, votes, source: "event \(id) (\(source))")
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

    /// An acknowledged quorum alert with no Result seen yet, from the most recent few, and the votes seen on it;
    /// or nil.
    func ballot() -> (creation: Creation, votes: [JSONValue])? {
        state.withLock { state in
            state.ballots.removeAll { state.outcomes[$0] != nil }
            guard let id = state.ballots.suffix(24).randomElement(), let position = state.positions[id] else {
                return nil
            }
            return (state.creations[position], state.votes[id]?.votes ?? [])
        }
    }

    /// Takes an alert out of what clients choose from (its check failed: more requests would only repeat it).
    func abandon(_ id: String) {
        state.withLock { state in
            state.open.removeAll { $0 == id }
            state.ballots.removeAll { $0 == id }
        }
    }

    /// How many creates were acknowledged.
    var creationCount: Int { state.withLock { $0.creations.count } }

    /// Everything acknowledged so far.
    func snapshot() -> Snapshot {
        state.withLock {
            Snapshot(creations: $0.creations, outcomes: $0.outcomes, resolvedOrder: $0.resolvedOrder, events: $0.events,
                     highestEvent: $0.highestEvent, votes: $0.votes, votedOrder: $0.votedOrder, rules: $0.rules,
                     ruleAnswers: $0.ruleAnswers)
        }
    }

    var failures: [String] { state.withLock { $0.failures } }

    var counts: [String: Int] { state.withLock { $0.counts } }
}
