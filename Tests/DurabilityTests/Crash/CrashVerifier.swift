import Foundation
import HTTPTestSupport
import JSON
import Locking

/// The checks after a restart: what the ledger held when alertd was killed must be on the restarted alertd,
/// unchanged. Each restart checks what was acknowledged since the last check and a sample of the rest, and every
/// rule; the last check (`everything`) takes all of it. It reads as an admin, and replays creates as the producer.
final class CrashVerifier: Sendable {
    /// Members an alert's later life changes; the rest is its content, fixed at the create.
    static let changing: Set<String> = ["state", "result", "webhook", "votes"]

    private static let admin = [CrashWorkload.Tokens.bearer(CrashWorkload.Tokens.admin)]

    private struct Progress {
        var creations = 0
        var outcomes = 0
        var voted = 0
        var ruleAnswers = 0
        var events: UInt64 = 0
    }

    private let server: AlertdProcess
    private let ledger: CrashLedger
    private let progress = Lock(Progress())

    init(server: AlertdProcess, ledger: CrashLedger) {
        self.server = server
        self.ledger = ledger
    }

    /// Checks `snapshot` (the ledger as it was at the kill) against the restarted alertd.
    /// - Parameters:
    ///   - when: when it runs, for messages ("after restart 3").
    ///   - everything: check every entry, not the new ones and a sample.
    func check(_ when: String, _ snapshot: CrashLedger.Snapshot, everything: Bool) async {
        let done = progress.withLock { $0 }
        do {
            var ids = Set(snapshot.creations[done.creations...].map(\.id))
            ids.formUnion(snapshot.resolvedOrder[done.outcomes...])
            ids.formUnion(snapshot.votedOrder[done.voted...])
            ids.formUnion(snapshot.ruleAnswers[done.ruleAnswers...].map(\.id))
            let older = snapshot.creations[..<done.creations].map(\.id)
            ids.formUnion(everything ? older : Array(older.shuffled().prefix(48)))
            if everything { ids.formUnion(snapshot.outcomes.keys) }
            try await checkAlerts(Array(ids), snapshot, when: when)
            try await checkRules(snapshot, when: when)
            let keyed = snapshot.creations[(everything ? 0 : done.creations)...].filter { $0.key != nil }
            try await checkReplays(Array(keyed.shuffled().prefix(everything ? 64 : 8)), when: when)
            let from = everything ? 0 : done.events
            try await checkEvents(after: from, through: snapshot.highestEvent, snapshot, when: when)
        } catch {
            ledger.fail("\(when): the checks could not talk to alertd on port \(server.port): \(error); alertd's "
                + "standard error ends with: \(server.standardErrorTail)")
        }
        progress.withLock {
            $0 = Progress(creations: snapshot.creations.count, outcomes: snapshot.resolvedOrder.count,
                          voted: snapshot.votedOrder.count, ruleAnswers: snapshot.ruleAnswers.count,
                          events: max($0.events, snapshot.highestEvent))
        }
    }

    // MARK: alerts

    /// Every alert: there, with the content of its create, the Result seen for it, every vote seen on it (a
    /// resolved alert's votes are its Result's), and the rule that answered it.
    private func checkAlerts(_ ids: [String], _ snapshot: CrashLedger.Snapshot, when: String) async throws {
        let creations = Dictionary(snapshot.creations.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let ruleAnswers = Dictionary(snapshot.ruleAnswers.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for batch in stride(from: 0, to: ids.count, by: 100).map({ ids[$0..<min($0 + 100, ids.count)] }) {
            let requests = batch.map { RawHTTP.persistentRequest("GET", "/v1/alerts/\($0)", headers: Self.admin) }
            let responses = try await RawHTTP.keepAlive(requests, port: server.port, timeout: TestTime.bound(30))
            guard responses.count == batch.count else {
                throw RawHTTPError(description: "\(responses.count) of \(batch.count) GETs answered on one connection")
            }
            for (id, response) in zip(batch, responses) {
                let creation = creations[id]
                let outcome = snapshot.outcomes[id]
                let known = [creation.map { "created: \($0.source)" }, outcome.map { "resolved: \($0.source)" }]
                    .compactMap { $0 }.joined(separator: "; ")
                guard response.status == 200 else {
                    ledger.fail("\(when): GET /v1/alerts/\(id) answered \(response), yet alertd had acknowledged it "
                        + "(\(known))")
                    continue
                }
                let alert = response.json
                ledger.count("alert reads verified")
                if let creation, alert.removing(Self.changing) != creation.alert.removing(Self.changing) {
                    ledger.fail("\(when): alert \(id) changed: \(creation.source) showed "
                        + "\(creation.alert.removing(Self.changing).text), now \(alert.removing(Self.changing).text)")
                }
                let result = alert["result"] ?? .null
                if let outcome, result != outcome.result {
                    ledger.fail("\(when): alert \(id) has Result \(result.text) (state "
                        + "\(alert["state"]?.text ?? "?")), yet \(outcome.source) showed \(outcome.result.text)")
                } else if !result.isNull {
                    ledger.resolved(id, result, source: "GET \(when)")
                }
                checkVotes(of: alert, snapshot.votes[id], when: when)
                if let answer = ruleAnswers[id], result["responder"]?.stringValue != "rule:\(answer.rule)" {
                    ledger.fail("\(when): alert \(id) has Result \(result.text), yet \(answer.source) showed it "
                        + "answered by rule \(answer.rule)")
                }
            }
        }
    }

    /// An alert's votes begin with the votes seen on it; once it is resolved they are its Result's votes.
    private func checkVotes(of alert: JSONValue, _ seen: CrashLedger.Votes?, when: String) {
        let id = alert["id"]?.text ?? "?"
        let votes = alert["votes"]?.arrayValue ?? []
        if let seen, Array(votes.prefix(seen.votes.count)) != seen.votes {
            ledger.fail("\(when): alert \(id) has the votes \(JSONValue.array(votes).text), yet \(seen.source) "
                + "showed \(JSONValue.array(seen.votes).text)")
        }
        if let result = alert["result"], !result.isNull, result["votes"] != alert["votes"] {
            ledger.fail("\(when): alert \(id) has the votes \(JSONValue.array(votes).text), its Result "
                + "\(result.text)")
        }
        if !votes.isEmpty {
            ledger.count("votes verified", votes.count)
            ledger.voted(alert["id"]?.stringValue ?? "?", votes, source: "GET \(when)")
        }
    }

    // MARK: rules

    /// Every rule whose add was acknowledged is listed as the `201` showed it, unless a delete of it was sent (before
    /// the kill, or since: the load goes on); every rule whose delete was acknowledged is not.
    private func checkRules(_ snapshot: CrashLedger.Snapshot, when: String) async throws {
        let response = try await server.send("GET", "/v1/rules", headers: Self.admin)
        guard response.status == 200, let listed = response.json["rules"]?.arrayValue else {
            ledger.fail("\(when): GET /v1/rules answered \(response)")
            return
        }
        let rules = Dictionary(listed.map { ($0["name"]?.stringValue ?? "", $0) }, uniquingKeysWith: { first, _ in first })
        for (name, known) in snapshot.rules {
            if let deleted = known.deleted {
                if let rule = rules[name] {
                    ledger.fail("\(when): rule \(name) is listed (\(rule.text)), yet \(deleted) deleted it")
                }
            } else if !known.deleting {
                if rules[name] != known.rule, !ledger.ruleDeleteSent(name) {
                    ledger.fail("\(when): rule \(name) is listed as \(rules[name]?.text ?? "nothing"), yet "
                        + "\(known.source) showed \(known.rule.text)")
                }
            }
            ledger.count("rules verified")
        }
    }

    // MARK: idempotency

    /// A retry of an acknowledged create with its key replays the alert: `200`, `Idempotent-Replayed: true`, the
    /// same id and content.
    private func checkReplays(_ creations: [CrashLedger.Creation], when: String) async throws {
        for creation in creations {
            guard let key = creation.key else { continue }
            let response = try await server.send("POST", "/v1/alerts", body: creation.body, headers: [
                ("Idempotency-Key", key), CrashWorkload.Tokens.bearer(CrashWorkload.Tokens.producer),
            ])
            let alert = response.json
            guard response.status == 200, response.headers["idempotent-replayed"] == "true",
                  alert["id"]?.stringValue == creation.id,
                  alert.removing(Self.changing) == creation.alert.removing(Self.changing) else {
                ledger.fail("\(when): a retry of the create of \(creation.id) (\(creation.source)) with "
                    + "Idempotency-Key \(key) answered \(response) (Idempotent-Replayed: "
                    + "\(response.headers["idempotent-replayed"] ?? "absent")); expected 200, a replay of that alert")
                continue
            }
            ledger.count("idempotent replays verified")
        }
    }

    // MARK: events

    /// The events after `cursor` through `last`, read again: ids run on without a gap, and each equals what the
    /// followers read before the kill.
    private func checkEvents(after cursor: UInt64, through last: UInt64, _ snapshot: CrashLedger.Snapshot,
                             when: String) async throws {
        var cursor = cursor
        while cursor < last {
            let response = try await server.send("GET", "/v1/events?since=\(cursor)&wait=0", headers: Self.admin)
            guard response.status == 200, let events = response.json.arrayValue else {
                ledger.fail("\(when): GET /v1/events?since=\(cursor) answered \(response); the followers had read "
                    + "events through \(last)")
                return
            }
            guard !events.isEmpty else {
                let first = snapshot.events[cursor + 1]
                ledger.fail("\(when): events \(cursor + 1)…\(last) are gone (the index is "
                    + "\(response.headers["x-alertd-index"] ?? "?")); the followers had read them, the first: "
                    + (first.map { "\($0.type) of \($0.alert["id"]?.text ?? "?") read by \($0.source)" } ?? "-"))
                return
            }
            for event in events {
                let id = event["id"]?.int64Value.map { UInt64($0) }
                guard id == cursor + 1, let type = event["type"]?.stringValue, let alert = event["alert"] else {
                    ledger.fail("\(when): after event \(cursor) came \(event.text.prefix(300)) (a gap or a bad event)")
                    return
                }
                cursor += 1
                if let seen = snapshot.events[cursor] {
                    if seen.type != type || seen.alert != alert {
                        ledger.fail("\(when): event \(cursor) is now \(type) \(alert.text); \(seen.source) read "
                            + "\(seen.type) \(seen.alert.text)")
                    }
                    ledger.count("events verified")
                }
                ledger.event(cursor, type: type, alert: alert, source: "GET /v1/events \(when)")
            }
        }
    }
}
