import Foundation
import HTTPTestSupport
import JSON
import Locking
import Testing

/// The policy clients of the cluster's crash test, each step through another instance (the next one when an instance
/// does not answer, as a load balancer would): ballots, each a quorum alert (quorum 2, sometimes 3; `Cancel`, `A`,
/// `B`) created on one instance whose three voters then vote at once, each through another instance (so they race;
/// `Cancel` sometimes, a veto), or one voter alone (it stays pending with one vote, or its producer dismisses it
/// then, through another instance); and an admin of rules that adds and removes rules and creates the alerts they must answer
/// and the alerts a removed one must leave pending. Everything is recorded in `ledger` as acknowledged only from a
/// response received whole with a `2xx` (or a `409` naming the winner); one cut off, or refused with `503`, may or may
/// not have been made: a vote and a rule's removal are retried until answered, as a client would.
final class PolicyLoad: Sendable {
    /// The tokens alertd runs with (`--tokens-file`): the cluster nodes' requests carry `admin` (it creates, answers,
    /// dismisses, manages rules and reads everything); votes count only from distinct responders.
    enum Tokens {
        static let admin = "crash-admin-token-0123456789"
        static let voters = (1...3).map { (name: "v\($0)", token: "crash-voter-\($0)-token-0123456789") }

        /// A tokens file naming them; the caller removes it.
        static func file() throws -> URL {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("alertd-crash-tokens-\(UUID())")
            try (["root:admin:\(admin)"] + voters.map { "\($0.name):responder:\($0.token)" })
                .joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
            return file
        }
    }

    let ledger = PolicyLedger()
    private let nodes: [ClusterNode]
    private let stopped = Lock(false)

    init(nodes: [ClusterNode]) {
        self.nodes = nodes
    }

    /// Runs two ballot loops and the admin of rules until `stop()`.
    func run() async {
        await withTaskGroup(of: Void.self) { group in
            for loop in 1...2 { group.addTask { await self.ballots(loop) } }
            group.addTask { await self.manageRules() }
        }
    }

    func stop() {
        stopped.withLock { $0 = true }
    }

    private var isStopped: Bool { stopped.withLock { $0 } }

    /// One request through `nodes[node]`; nil unless a whole response other than `503` came back (then the caller
    /// may try again, through the next instance, after a client's back-off).
    private func exchange(
        _ method: String, _ target: String, through node: Int, body: String? = nil, token: String? = nil,
        lost: String
    ) async -> WireResponse? {
        let headers = token.map { [("Authorization", "Bearer \($0)")] } ?? []
        let instance = nodes[node % nodes.count]
        if let response = try? await instance.request(method, target, json: body, headers: headers, timeout: 10),
           response.isWhole, response.status != 503 {
            return response
        }
        ledger.count(lost)
        try? await Task.sleep(for: .milliseconds(30))
        return nil
    }

    // MARK: ballots

    private func ballots(_ loop: Int) async {
        var serial = 0
        while !isStopped {
            serial += 1
            let node = serial + loop
            let quorum = Int.random(in: 0..<4) == 0 ? 3 : 2
            let body = #"{"title":"ballot \#(loop)-\#(serial)","buttons":["Cancel","A","B"],"quorum":\#(quorum),"#
                + #""timeout":600}"#
            guard let created = await exchange("POST", "/v1/alerts", through: node, body: body,
                                               lost: "ballot creates cut off") else { continue }
            guard created.status == 201, let alert = try? created.json(), let id = alert["id"]?.stringValue,
                  alert["state"]?.stringValue == "pending" else {
                ledger.fail("POST /v1/alerts \(body) answered \(created)")
                continue
            }
            let roll = Int.random(in: 0..<10)
            let voters = roll < 3 ? [Tokens.voters.randomElement()!] : Tokens.voters.shuffled()
            if voters.count > 1 { ledger.count("ballots raced") }
            await withTaskGroup(of: Void.self) { group in
                for (number, voter) in voters.enumerated() {
                    let button = Int.random(in: 0..<10) == 0 ? 0 : (Int.random(in: 0..<10) < 7 ? 1 : 2)
                    group.addTask {
                        await self.vote(id, quorum: quorum, as: voter, button: button, through: node + 1 + number)
                    }
                }
            }
            if roll == 0 { await dismiss(id, through: node + 2) }  // a pending one with a vote, mostly
        }
    }

    /// Votes `button` on alert `id` as `voter`, retried until an instance answers it.
    private func vote(
        _ id: String, quorum: Int, as voter: (name: String, token: String), button: Int, through first: Int
    ) async {
        let target = "/v1/alerts/\(id)/response"
        var node = first
        var cutOff = 0
        while !isStopped {
            let what = "POST \(target) {\"buttonIndex\":\(button)} as \(voter.name) through "
                + "\(nodes[node % nodes.count].port) (after \(cutOff) cut off)"
            guard let response = await exchange("POST", target, through: node, body: #"{"buttonIndex":\#(button)}"#,
                                                token: voter.token, lost: "votes cut off") else {
                cutOff += 1
                node += 1
                continue
            }
            let json = (try? JSONParser.parse(response.body)) ?? .null
            let object = json.objectValue ?? [:]
            let votes = object["votes"]?.arrayValue ?? []
            let responders = votes.compactMap { $0.objectValue?["responder"]?.stringValue }
            let last = votes.last?.objectValue
            let ours = last?["responder"]?.stringValue == voter.name && last?["buttonIndex"]?.int64Value == Int64(button)
            switch response.status {
            case 202:
                guard object["state"]?.stringValue == "pending", ours, Set(responders).count == responders.count else {
                    ledger.fail("\(what): 202 with \(json.text), not pending with that vote last, once each")
                    return
                }
                ledger.voted(id, votes.last!, source: "202 to \(what)")
            case 200:
                let agreeing = votes.filter { $0.objectValue?["buttonIndex"]?.int64Value == Int64(button) }.count
                guard ours, object["buttonIndex"]?.int64Value == Int64(button),
                      object["responder"]?.stringValue == voter.name, button == 0 || agreeing == quorum,
                      Set(responders).count == responders.count else {
                    ledger.fail("\(what): 200 with the Result \(json.text), which that vote did not make")
                    return
                }
                ledger.voted(id, votes.last!, source: "200 to \(what)")
                ledger.count(button == 0 ? "vetoes" : "quorums reached")
                ledger.resolved(id, json, source: "200 to \(what)")
            case 409 where object["result"] != nil:
                ledger.count("409s naming the winner")
                ledger.resolved(id, object["result"]!, source: "409 to \(what)")
            case 409 where object["type"]?.stringValue == "urn:alertd:problem:already-voted" && cutOff > 0:
                ledger.count("votes made by an attempt cut off")
            default:
                ledger.fail("\(what) answered \(response)")
            }
            return
        }
    }

    /// Its producer withdraws the ballot: the Result keeps the votes so far.
    private func dismiss(_ id: String, through node: Int) async {
        let what = "DELETE /v1/alerts/\(id) (a ballot) through \(nodes[node % nodes.count].port)"
        guard let response = await exchange("DELETE", "/v1/alerts/\(id)", through: node,
                                            lost: "dismissals cut off") else { return }
        let json = (try? JSONParser.parse(response.body)) ?? .null
        switch response.status {
        case 200:
            ledger.count("ballots dismissed")
            ledger.resolved(id, json, source: "200 to \(what)")
        case 409 where json.objectValue?["result"] != nil:
            ledger.resolved(id, json.objectValue!["result"]!, source: "409 to \(what)")
        default:
            ledger.fail("\(what) answered \(response)")
        }
    }

    // MARK: rules

    /// Rule `rN` matches the titles `ruled rN *` only: no other client's alert.
    private func manageRules() async {
        var serial = 0
        var step = 0
        var live: [(name: String, source: String)] = []
        var removed: [(name: String, source: String)] = []
        while !isStopped {
            step += 1
            let roll = Int.random(in: 0..<10)
            if live.count < 2 || roll == 0 {
                serial += 1
                if let source = await addRule("r\(serial)", through: step) { live.append(("r\(serial)", source)) }
            } else if roll < 6 {
                await createRuled(by: live.randomElement()!, through: step)
            } else if roll < 8, let rule = removed.randomElement() {
                await createUnruled(by: rule, through: step)
            } else {
                let name = live.remove(at: Int.random(in: live.indices)).name
                if let source = await removeRule(name, through: step) {
                    removed.append((name, source))
                    await createUnruled(by: (name, source), through: step + 1)
                }
            }
            ledger.count("rule steps")
            try? await Task.sleep(for: .milliseconds(40))
        }
    }

    /// Creates an alert on one instance that rule `name` will match, then adds the rule through the next: its `201`
    /// must list that alert as answered. Returns what acknowledged the rule, or nil.
    private func addRule(_ name: String, through node: Int) async -> String? {
        let waiting = await createForRule(name, title: "before", through: node)
        if let waiting, waiting["state"]?.stringValue != "pending" {
            ledger.fail("an alert for rule \(name), which is not made yet, was created as \(waiting.text)")
            return nil
        }
        let body = #"{"name":"\#(name)","match":{"title":"ruled \#(name) *"},"button":"OK"}"#
        let what = "POST /v1/rules \(body) through \(nodes[(node + 1) % nodes.count].port)"
        guard let response = await exchange("POST", "/v1/rules", through: node + 1, body: body,
                                            lost: "rule adds cut off") else { return nil }
        guard response.status == 201, let rule = try? response.json(), let answered = rule["answered"]?.arrayValue
        else {
            ledger.fail("\(what) answered \(response)")
            return nil
        }
        let source = "201 to \(what)"
        ledger.ruleAdded(name, JSONValue.object(rule).removing(["answered"]), source: source)
        if let id = waiting?["id"]?.stringValue {
            if answered.contains(.string(id)) {
                ledger.ruleAnswered(id, by: name, source: source)
            } else {
                ledger.fail("\(what): answered \(JSONValue.array(answered).text), not alert \(id), pending and "
                    + "matching it")
            }
        }
        return source
    }

    /// An alert that live `rule` must answer at its create.
    private func createRuled(by rule: (name: String, source: String), through node: Int) async {
        guard let alert = await createForRule(rule.name, title: "answered", through: node),
              let id = alert["id"]?.stringValue else { return }
        let source = "201 to the create of alert \(id) through \(nodes[node % nodes.count].port)"
        guard let result = alert["result"], result.objectValue?["responder"]?.stringValue == "rule:\(rule.name)" else {
            ledger.fail("\(source): \(alert.text), not answered by rule \(rule.name), which \(rule.source) made")
            return
        }
        ledger.resolved(id, result, source: source)
        ledger.ruleAnswered(id, by: rule.name, source: source)
    }

    /// An alert that removed `rule` would have answered: it must stay pending (nobody answers it).
    private func createUnruled(by rule: (name: String, source: String), through node: Int) async {
        guard let alert = await createForRule(rule.name, title: "unanswered", through: node),
              let id = alert["id"]?.stringValue else { return }
        let source = "201 to the create of alert \(id) through \(nodes[node % nodes.count].port)"
        guard alert["state"]?.stringValue == "pending" else {
            ledger.fail("\(source): \(alert.text), yet \(rule.source) removed the rule that matches it")
            return
        }
        ledger.unruled(id, source: "\(source), after \(rule.source) removed rule \(rule.name)")
    }

    /// Creates an alert titled `ruled <rule> <title>`; the alert its `201` carried, or nil when it was cut off.
    private func createForRule(_ rule: String, title: String, through node: Int) async -> JSONValue? {
        let body = #"{"title":"ruled \#(rule) \#(title)","buttons":["Cancel","OK"],"timeout":600}"#
        guard let response = await exchange("POST", "/v1/alerts", through: node, body: body,
                                            lost: "creates cut off") else { return nil }
        guard response.status == 201, let alert = try? response.json() else {
            ledger.fail("POST /v1/alerts \(body) through \(nodes[node % nodes.count].port) answered \(response)")
            return nil
        }
        return .object(alert)
    }

    /// Removes rule `name`, retried until an instance answers; returns what acknowledged the removal, or nil.
    private func removeRule(_ name: String, through first: Int) async -> String? {
        ledger.ruleRemoving(name)
        var node = first
        var cutOff = 0
        while !isStopped {
            let what = "DELETE /v1/rules/\(name) through \(nodes[node % nodes.count].port) (after \(cutOff) cut off)"
            guard let response = await exchange("DELETE", "/v1/rules/\(name)", through: node,
                                                lost: "rule removals cut off") else {
                cutOff += 1
                node += 1
                continue
            }
            // A 404 after a removal cut off: that removal was made.
            guard response.status == 200 || (cutOff > 0 && response.status == 404) else {
                ledger.fail("\(what) answered \(response)")
                return nil
            }
            ledger.ruleRemoved(name, source: "\(response.status) to \(what)")
            return "\(response.status) to \(what)"
        }
        return nil
    }
}

/// What the policy clients were told (each from a response received whole), which every instance must show unchanged
/// after every crash; checks of a reply against itself fail as replies arrive.
final class PolicyLedger: Sendable {
    /// Something acknowledged, and what acknowledged it.
    struct Seen: Sendable {
        let value: JSONValue
        let source: String
    }

    /// An acknowledged rule: its `201` (without `answered`), and its removal once sent and once acknowledged.
    struct Rule: Sendable {
        let rule: JSONValue
        let source: String
        /// A removal was sent: until it is acknowledged the rule may be there or not.
        var removing = false
        var removed: String?
    }

    /// What the ledger held at one moment (for the checks after a crash).
    struct Snapshot: Sendable {
        /// Every acknowledged vote (`202` or `200`) by alert id: the vote as its reply showed it.
        var votes: [String: [Seen]] = [:]
        /// Every Result acknowledged for a ballot or shown for an alert a rule answered.
        var results: [String: Seen] = [:]
        /// The alerts a rule answered: the rule's name.
        var ruleAnswers: [String: Seen] = [:]
        /// Alerts created after the rule that matches them was removed: they stay pending.
        var unruled: [String: String] = [:]
        var rules: [String: Rule] = [:]
    }

    private struct State {
        var snapshot = Snapshot()
        var failures: [String] = []
        var counts: [String: Int] = [:]
    }

    private let state = Lock(State())

    func voted(_ id: String, _ vote: JSONValue, source: String) {
        state.withLock {
            $0.snapshot.votes[id, default: []].append(Seen(value: vote, source: source))
            $0.counts["votes acknowledged", default: 0] += 1
        }
    }

    /// Records a Result acknowledged for `id`; one different from a Result acknowledged before fails.
    func resolved(_ id: String, _ result: JSONValue, source: String) {
        state.withLock { state in
            if let known = state.snapshot.results[id] {
                if known.value != result {
                    state.failures.append("alert \(id): its Result changed: \(known.source) showed \(known.value.text), "
                        + "\(source) shows \(result.text)")
                }
                return
            }
            state.snapshot.results[id] = Seen(value: result, source: source)
        }
    }

    func ruleAnswered(_ id: String, by rule: String, source: String) {
        state.withLock {
            $0.snapshot.ruleAnswers[id] = Seen(value: .string(rule), source: source)
            $0.counts["rule answers", default: 0] += 1
        }
    }

    func unruled(_ id: String, source: String) {
        state.withLock {
            $0.snapshot.unruled[id] = source
            $0.counts["left pending by a removed rule", default: 0] += 1
        }
    }

    func ruleAdded(_ name: String, _ rule: JSONValue, source: String) {
        state.withLock {
            $0.snapshot.rules[name] = Rule(rule: rule, source: source)
            $0.counts["rules added", default: 0] += 1
        }
    }

    func ruleRemoving(_ name: String) {
        state.withLock { $0.snapshot.rules[name]?.removing = true }
    }

    /// Whether a removal of rule `name` was sent by now.
    func ruleRemovalSent(_ name: String) -> Bool {
        state.withLock { $0.snapshot.rules[name]?.removing ?? false }
    }

    func ruleRemoved(_ name: String, source: String) {
        state.withLock {
            $0.snapshot.rules[name]?.removed = source
            $0.counts["rules removed", default: 0] += 1
        }
    }

    func fail(_ text: String) {
        state.withLock { $0.failures.append(text) }
    }

    func count(_ name: String) {
        state.withLock { $0.counts[name, default: 0] += 1 }
    }

    func snapshot() -> Snapshot { state.withLock { $0.snapshot } }

    var failures: [String] { state.withLock { $0.failures } }

    var counts: [String: Int] { state.withLock { $0.counts } }

    func count(of name: String) -> Int { counts[name] ?? 0 }
}

/// Every vote, Result, rule answer and removal in `snapshot` is on every one of `nodes` once it reached PostgreSQL's
/// head: each acknowledged vote with its responder and button (and its time) in the alert's `votes`, and, once it is
/// resolved, in its Result's; no responder twice; each acknowledged Result unchanged; each alert a rule answered with
/// `rule:<name>` as its responder; each alert a removed rule matches still pending; each acknowledged rule listed as
/// its `201` showed it (unless a removal of it was sent), and each acknowledged removal not listed.
func expectPolicyKept(
    _ snapshot: PolicyLedger.Snapshot, _ ledger: PolicyLedger, on nodes: [ClusterNode], postgres: ScratchPostgres,
    when: String
) async throws {
    let head = UInt64(try await postgres.sql("SELECT head FROM alertd_cluster")) ?? 0
    for node in nodes {
        try await eventually("\(node.port) reached PostgreSQL's head \(head) \(when)") { try await node.index() >= head }
        let alerts = try await node.alerts()
        var wrong: [String] = []
        let ids = Set(snapshot.votes.keys).union(snapshot.results.keys).union(snapshot.ruleAnswers.keys)
            .union(snapshot.unruled.keys)
        for id in ids {
            guard let alert = alerts[id] else {
                let source = snapshot.votes[id]?.first?.source ?? snapshot.results[id]?.source
                    ?? snapshot.ruleAnswers[id]?.source ?? snapshot.unruled[id] ?? "?"
                wrong.append("\(id) is not listed, yet \(source)")
                continue
            }
            let votes = alert["votes"]?.arrayValue ?? []
            let responders = votes.compactMap { $0.objectValue?["responder"]?.stringValue }
            if Set(responders).count != responders.count { wrong.append("\(id) has a responder twice: \(JSONValue.array(votes).text)") }
            for vote in snapshot.votes[id] ?? [] where !votes.contains(vote.value) {
                wrong.append("\(id) has the votes \(JSONValue.array(votes).text), without \(vote.value.text) of "
                    + vote.source)
            }
            let result = alert["result"] ?? .null
            if !result.isNull, result.objectValue?["votes"] != alert["votes"] {
                wrong.append("\(id) has the votes \(JSONValue.array(votes).text), its Result \(result.text)")
            }
            if let seen = snapshot.results[id], seen.value != result {
                wrong.append("\(id) has the Result \(result.text), yet \(seen.source) showed \(seen.value.text)")
            }
            if let rule = snapshot.ruleAnswers[id],
               result.objectValue?["responder"]?.stringValue != "rule:\(rule.value.stringValue ?? "")" {
                wrong.append("\(id) has the Result \(result.text), yet \(rule.source) showed it answered by "
                    + "rule \(rule.value.stringValue ?? "")")
            }
            if let source = snapshot.unruled[id], alert["state"]?.stringValue != "pending" {
                wrong.append("\(id) is \(alert["state"]?.stringValue ?? "?") (\(result.text)), yet \(source)")
            }
        }
        #expect(wrong.isEmpty, "\(when), on \(node.port): \(wrong.count) wrong: \(wrong.prefix(10))")

        // A rule changed through another instance reaches this one's list within a second or so.
        var unlisted: [String] = []
        let deadline = Date().addingTimeInterval(TestTime.bound(10))
        repeat {
            let listed = try await node.request("GET", "/v1/rules").json()["rules"]?.arrayValue ?? []
            let rules = Dictionary(listed.map { ($0.objectValue?["name"]?.stringValue ?? "", $0) },
                                   uniquingKeysWith: { first, _ in first })
            unlisted = snapshot.rules.compactMap { name, known in
                if let removed = known.removed {
                    return rules[name].map { "\(name) is listed as \($0.text), yet \(removed) removed it" }
                }
                guard !known.removing, rules[name] != known.rule, !ledger.ruleRemovalSent(name) else { return nil }
                return "\(name) is listed as \(rules[name]?.text ?? "nothing"), yet \(known.source) showed "
                    + known.rule.text
            }
            if unlisted.isEmpty { break }
            try await Task.sleep(for: .milliseconds(50))
        } while Date() < deadline
        #expect(unlisted.isEmpty, "\(when), on \(node.port): rules: \(unlisted.prefix(10))")
    }
}
