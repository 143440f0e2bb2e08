import Foundation
import HTTPTestSupport
import JSON
import Locking

/// The crash test's clients: producers that create alerts (some with an `Idempotency-Key`, some with a `timeout` so
/// that expiries happen, some with a quorum of 2), responders that answer and dismiss them (racing each other on the
/// newest), voters that vote on the quorum alerts (three responders, racing each other), waiters that long-poll for
/// Results, and an admin that adds and deletes rules and creates the alerts they answer. Each records in the ledger
/// what alertd acknowledged: a 2xx (or a 409 naming the winner) received whole. A request cut off by a kill
/// acknowledged nothing; a create with a key, and a rule's delete, are retried until acknowledged, as a client would.
final class CrashWorkload: Sendable {
    /// The tokens alertd runs with (`ALERTD_TOKENS`): votes count only from distinct responders, and only admins
    /// manage rules. Every producer creates as `ci`, so each may dismiss any alert; the verifier reads as `root`.
    enum Tokens {
        static let producer = "crash-producer-0123456789"
        static let admin = "crash-admin-0123456789"
        /// The responders that answer (their names are `r1`, `r2`, …).
        static let responders = (1...2).map { "crash-responder-\($0)-0123456789" }
        /// The responders that vote, by name.
        static let voters = (1...3).map { (name: "v\($0)", token: "crash-voter-\($0)-0123456789") }
        /// A responder that only reads: waiters and followers.
        static let watcher = "crash-watcher-0123456789"

        static var environment: [String: String] {
            let entries = ["ci:producer:\(producer)", "root:admin:\(admin)", "watch:responder:\(watcher)"]
                + responders.enumerated().map { "r\($0.offset + 1):responder:\($0.element)" }
                + voters.map { "\($0.name):responder:\($0.token)" }
            return ["ALERTD_TOKENS": entries.joined(separator: ",")]
        }

        static func bearer(_ token: String) -> (String, String) { ("Authorization", "Bearer \(token)") }
    }

    private let server: AlertdProcess
    private let ledger: CrashLedger
    private let stopped = Lock(false)

    init(server: AlertdProcess, ledger: CrashLedger) {
        self.server = server
        self.ledger = ledger
    }

    /// Runs `producers` producers, `responders` responders (at most `Tokens.responders.count`), `voters` voters,
    /// `waiters` waiters and one admin of rules until `stop()`.
    func run(producers: Int, responders: Int, voters: Int, waiters: Int) async {
        await withTaskGroup(of: Void.self) { group in
            for number in 1...producers { group.addTask { await self.produce(number) } }
            for number in 1...responders { group.addTask { await self.respond(number) } }
            for number in 1...voters { group.addTask { await self.vote(number) } }
            for number in 1...waiters { group.addTask { await self.wait(number) } }
            group.addTask { await self.manageRules() }
        }
    }

    /// Makes every client stop after its current request.
    func stop() {
        stopped.withLock { $0 = true }
    }

    private var isStopped: Bool { stopped.withLock { $0 } }

    /// Which process a response came from, for messages ("life 3": the third start).
    private var life: String { "life \(server.starts)" }

    /// One request with `token` to the current process; nil unless a whole response came back. A request alertd may
    /// have received counts as `lost`; one it refused (it is away) waits a little, as a client's back-off.
    private func exchange(
        _ method: String, _ target: String, token: String, body: String? = nil, headers: [(String, String)] = [],
        lost: String
    ) async -> WireResponse? {
        do {
            let response = try await server.send(method, target, body: body, headers: headers + [Tokens.bearer(token)],
                                                 timeout: 10)
            if response.isWhole { return response }
        } catch let error as RawHTTPError where error.description.hasPrefix("connect to port") {
            try? await Task.sleep(for: .milliseconds(20))
            return nil
        } catch {}
        ledger.count(lost)
        return nil
    }

    // MARK: producers

    private func produce(_ producer: Int) async {
        var serial = 0
        while !isStopped {
            serial += 1
            let quorum = Int.random(in: 0..<10) < 2
            let (body, hasField) = quorum ? Self.quorumBody("p\(producer)-\(serial)")
                                          : Self.alertBody("p\(producer)-\(serial)")
            let key = Int.random(in: 0..<10) < 4 ? "crash-\(UUID().uuidString)" : nil
            let headers = key.map { [("Idempotency-Key", $0)] } ?? []
            let sentTo = life
            var response = await exchange("POST", "/v1/alerts", token: Tokens.producer, body: body, headers: headers,
                                          lost: "creates cut off")
            var retried = 0
            // Unacknowledged with a key: retry the same request until alertd answers, as a producer would.
            while key != nil, response == nil, !isStopped {
                retried += 1
                response = await exchange("POST", "/v1/alerts", token: Tokens.producer, body: body, headers: headers,
                                          lost: "creates cut off")
            }
            guard let response else { continue }
            let replayed = response.headers["idempotent-replayed"] == "true"
            guard response.status == 201 || (retried > 0 && response.status == 200 && replayed),
                  let id = response.json["id"]?.stringValue else {
                ledger.fail("producer \(producer): POST /v1/alerts \(body) (key \(key ?? "none"), \(retried) retries) "
                    + "answered \(response)")
                continue
            }
            if retried > 0 { ledger.count(replayed ? "creates replayed after a lost response" : "creates retried") }
            ledger.created(.init(id: id, body: body, key: key, alert: response.json, hasField: hasField,
                                 source: "\(response.status) to producer \(producer) (sent to \(sentTo), "
                                    + "acknowledged by \(life))"), for: quorum ? .votes : .answers)
            // Paced, not ordered: at most about 60 creates a second per producer, so an idle machine makes as much
            // data as a loaded one. Unpaced, an idle machine acknowledged 47,000 creates in 20 kills, and every
            // restart and check reads all of them back (the test ran past its time limit).
            try? await Task.sleep(for: Self.createPace)
        }
    }

    /// The pause after each acknowledged create.
    static let createPace = Duration.milliseconds(15)

    /// The admin of rules' pause after each step: about a tenth of the producers' creates, so that the rules' alerts
    /// add little to what every restart and check reads back.
    static let rulePace = Duration.milliseconds(60)

    /// A create body: the same shape a person would answer, made distinct by `name`.
    private static func alertBody(_ name: String) -> (String, Bool) {
        let hasField = Bool.random()
        var body = #"{"title":"crash \#(name)","message":"\#(UUID().uuidString)","tag":\#(Int.random(in: 0...999)),"#
            + #""presenter":"\#(["ops", "dev", "sre"].randomElement()!)","buttons":["Cancel","OK"]"#
        if hasField { body += #","fields":[{"placeholder":"note"}]"# }
        if Int.random(in: 0..<10) < 3 { body += #","timeout":\#(Double(Int.random(in: 5...25)) / 10)"# }
        return (body + "}", hasField)
    }

    /// A quorum alert's create body: two responders must agree on `A` or `B` (`Cancel` vetoes); no fields, which a
    /// quorum may not have. Some have a `timeout`, and voters leave them at one vote, so that they expire with it.
    private static func quorumBody(_ name: String) -> (String, Bool) {
        var body = #"{"title":"crash vote \#(name)","message":"\#(UUID().uuidString)","tag":\#(Int.random(in: 0...999)),"#
            + #""presenter":"\#(["ops", "dev", "sre"].randomElement()!)","buttons":["Cancel","A","B"],"quorum":2"#
        if Int.random(in: 0..<10) < 3 { body += #","timeout":\#(Double(Int.random(in: 5...25)) / 10)"# }
        return (body + "}", false)
    }

    // MARK: responders

    private func respond(_ responder: Int) async {
        while !isStopped {
            guard let alert = ledger.openAlert() else {
                try? await Task.sleep(for: .milliseconds(5))  // nothing to answer yet
                continue
            }
            // Alerts with a timeout are left to expire, so expiries happen however fast the responders are.
            if alert.body.contains(#""timeout":"#) {
                try? await Task.sleep(for: .milliseconds(5))
                continue
            }
            let answering = Int.random(in: 0..<10) < 6
            let request = answering
                ? ("POST", "/v1/alerts/\(alert.id)/response",
                   alert.hasField ? #"{"button":"OK","values":["r\#(responder)-\#(UUID().uuidString.prefix(8))"]}"#
                                  : #"{"button":"OK"}"#)
                : ("DELETE", "/v1/alerts/\(alert.id)", nil as String?)
            // A responder answers; its producer withdraws (responders may not dismiss).
            let token = answering ? Tokens.responders[responder - 1] : Tokens.producer
            let what = "\(request.0) \(request.1) by responder \(responder) (sent to \(life))"
            guard let response = await exchange(request.0, request.1, token: token, body: request.2,
                                                lost: answering ? "answers cut off" : "dismissals cut off") else {
                continue
            }
            record(response, resolving: alert, what: what, kind: "alert")
        }
    }

    /// Records the reply to an answer or a dismissal: a 200's Result, or the winner a 409 names; anything else fails
    /// the run (`kind` names the alert in the message).
    private func record(_ response: WireResponse, resolving alert: CrashLedger.Creation, what: String, kind: String) {
        switch response.status {
        case 200:
            ledger.resolved(alert.id, response.json, source: "200 to \(what)")
        case 409 where response.json["result"] != nil:
            ledger.count("409s naming the winner")
            ledger.resolved(alert.id, response.json["result"]!, source: "409 to \(what)")
        default:
            ledger.fail("\(what): \(kind) acknowledged by \(alert.source) answered \(response)")
            ledger.abandon(alert.id)
        }
    }

    // MARK: voters

    /// Votes on the newest quorum alerts, each time as a voter that has not voted on it yet: mostly `A` or `B`,
    /// sometimes `Cancel` (a veto); sometimes the producer dismisses the alert instead.
    private func vote(_ voter: Int) async {
        while !isStopped {
            guard let ballot = ledger.ballot() else {
                try? await Task.sleep(for: .milliseconds(5))  // nothing to vote on yet
                continue
            }
            let alert = ballot.creation
            let cast = Set(ballot.votes.compactMap { $0["responder"]?.stringValue })
            // An alert with a timeout gets one vote, so that it expires with it.
            let timed = alert.body.contains(#""timeout":"#)
            guard !(timed && !cast.isEmpty), let chosen = Tokens.voters.filter({ !cast.contains($0.name) }).randomElement()
            else {
                try? await Task.sleep(for: .milliseconds(5))
                continue
            }
            let (name, token) = chosen
            let roll = Int.random(in: 0..<20)
            if roll == 0 {
                await dismissBallot(alert, by: voter)
                continue
            }
            let button = roll == 1 ? 0 : Int.random(in: 1...2)
            let target = "/v1/alerts/\(alert.id)/response"
            let what = "POST \(target) {\"buttonIndex\":\(button)} by voter \(voter) as \(name) (sent to \(life))"
            guard let response = await exchange("POST", target, token: token, body: #"{"buttonIndex":\#(button)}"#,
                                                lost: "votes cut off") else {
                continue
            }
            let json = response.json
            switch response.status {
            case 202:
                // Still pending: the alert, with this vote last.
                let votes = json["votes"]?.arrayValue ?? []
                guard json["state"]?.stringValue == "pending", let last = votes.last,
                      last["responder"]?.stringValue == name, last["buttonIndex"]?.int64Value == Int64(button) else {
                    ledger.fail("\(what): 202 with \(json.text), which does not end with that vote")
                    continue
                }
                ledger.count("votes acknowledged")
                ledger.voted(alert.id, votes, source: "202 to \(what)")
            case 200:
                // Resolved by this vote: a veto, or the second vote for its button.
                let votes = json["votes"]?.arrayValue ?? []
                let agreeing = votes.filter { $0["buttonIndex"]?.int64Value == Int64(button) }.count
                guard let last = votes.last, last["responder"]?.stringValue == name,
                      last["buttonIndex"]?.int64Value == Int64(button),
                      json["buttonIndex"]?.int64Value == Int64(button), json["responder"]?.stringValue == name,
                      button == 0 || agreeing == 2 else {
                    ledger.fail("\(what): 200 with the Result \(json.text), which that vote did not make")
                    continue
                }
                ledger.count("votes acknowledged")
                ledger.count(button == 0 ? "vetoes" : "quorums reached")
                ledger.resolved(alert.id, json, source: "200 to \(what)")
            case 409 where json["result"] != nil:
                ledger.count("409s naming the winner")
                ledger.resolved(alert.id, json["result"]!, source: "409 to \(what)")
            case 409 where json["type"]?.stringValue == "urn:alertd:problem:already-voted":
                // Another voter task voted as this one first, or a vote of its cut off by a kill was made.
                ledger.count("409s already voted")
            default:
                ledger.fail("\(what): quorum alert acknowledged by \(alert.source) answered \(response)")
                ledger.abandon(alert.id)
            }
        }
    }

    /// The producer withdraws a quorum alert: the Result keeps the votes so far.
    private func dismissBallot(_ alert: CrashLedger.Creation, by voter: Int) async {
        let what = "DELETE /v1/alerts/\(alert.id) (quorum) for voter \(voter) (sent to \(life))"
        guard let response = await exchange("DELETE", "/v1/alerts/\(alert.id)", token: Tokens.producer,
                                            lost: "dismissals cut off") else {
            return
        }
        record(response, resolving: alert, what: what, kind: "quorum alert")
    }

    // MARK: rules

    /// The admin of rules: adds rules (each first made an alert to answer when it is added), creates alerts that a
    /// live rule must answer at creation and alerts that a deleted rule must leave pending, and deletes rules. Rule
    /// `rN` matches the titles `ruled rN *` only: no other client's alert.
    private func manageRules() async {
        var serial = 0
        var live: [(name: String, source: String)] = []
        var deleted: [(name: String, source: String)] = []
        while !isStopped {
            let roll = Int.random(in: 0..<10)
            if live.count < 2 || roll == 0 {
                serial += 1
                if let source = await addRule("r\(serial)") { live.append(("r\(serial)", source)) }
            } else if roll < 7 {
                await createRuled(by: live.randomElement()!)
            } else if roll < 8, let rule = deleted.randomElement() {
                await createUnruled(by: rule)
            } else {
                let name = live.remove(at: Int.random(in: live.indices)).name
                if let source = await deleteRule(name) { deleted.append((name, source)) }
            }
            try? await Task.sleep(for: Self.rulePace)
        }
    }

    /// Adds rule `name` once an alert it matches is pending, which its `201` must list as answered; returns what
    /// acknowledged the rule, or nil.
    private func addRule(_ name: String) async -> String? {
        let pending = await createForRule(name, title: "before")
        if let pending, pending.status == 201, pending.json["state"]?.stringValue != "pending" {
            ledger.fail("the admin's create of an alert for rule \(name), which is not made yet, answered \(pending)")
            return nil
        }
        let before = pending.flatMap { $0.status == 201 ? $0.json["id"]?.stringValue : nil }
        let body = #"{"name":"\#(name)","match":{"title":"ruled \#(name) *"},"button":"OK"}"#
        let what = "POST /v1/rules \(body) by the admin (sent to \(life))"
        guard let response = await exchange("POST", "/v1/rules", token: Tokens.admin, body: body,
                                            lost: "rule adds cut off") else {
            return nil
        }
        let source = "201 to \(what), acknowledged by \(life)"
        guard response.status == 201, let answered = response.json["answered"]?.arrayValue else {
            ledger.fail("\(what) answered \(response)")
            return nil
        }
        ledger.ruleAdded(name, response.json.removing(["answered"]), source: source)
        if let before {
            if answered.contains(.string(before)) {
                ledger.ruleAnswered(before, by: name, source: source)
            } else {
                ledger.fail("\(what): answered \(JSONValue.array(answered).text), not alert \(before), pending and "
                    + "matching it")
            }
        }
        return source
    }

    /// An alert that live `rule` must answer at creation.
    private func createRuled(by rule: (name: String, source: String)) async {
        guard let response = await createForRule(rule.name, title: "answered"), response.status == 201,
              let id = response.json["id"]?.stringValue else {
            return
        }
        let source = "201 to the admin's create of alert \(id) for rule \(rule.name) (acknowledged by \(life))"
        guard let result = response.json["result"], result["responder"]?.stringValue == "rule:\(rule.name)" else {
            ledger.fail("\(source): \(response.json.text), not answered by the rule, which \(rule.source)")
            return
        }
        ledger.resolved(id, result, source: source)
        ledger.ruleAnswered(id, by: rule.name, source: source)
    }

    /// An alert that deleted `rule` would have answered: it must stay pending, for the responders.
    private func createUnruled(by rule: (name: String, source: String)) async {
        guard let response = await createForRule(rule.name, title: "unanswered"), response.status == 201,
              response.json["id"]?.stringValue != nil else {
            return
        }
        if response.json["state"]?.stringValue != "pending" {
            ledger.fail("the admin's create of an alert for rule \(rule.name), deleted by \(rule.source), answered "
                + "\(response)")
        }
    }

    /// Creates an alert titled `ruled <rule> <title>` (rule `rule` answers it while it is there) and records it;
    /// the response, or nil when it was cut off. Only a `201` that shows it pending puts it before the responders.
    private func createForRule(_ rule: String, title: String) async -> WireResponse? {
        let hasField = Bool.random()
        var body = #"{"title":"ruled \#(rule) \#(title)","message":"\#(UUID().uuidString)","buttons":["Cancel","OK"]"#
        if hasField { body += #","fields":[{"placeholder":"note","text":"prefilled"}]"# }
        body += "}"
        let sentTo = life
        guard let response = await exchange("POST", "/v1/alerts", token: Tokens.producer, body: body,
                                            lost: "creates cut off") else {
            return nil
        }
        guard response.status == 201, let id = response.json["id"]?.stringValue else {
            ledger.fail("the admin: POST /v1/alerts \(body) answered \(response)")
            return response
        }
        let pending = response.json["state"]?.stringValue == "pending"
        ledger.created(.init(id: id, body: body, key: nil, alert: response.json, hasField: hasField,
                             source: "201 to the admin (sent to \(sentTo), acknowledged by \(life))"),
                       for: pending && title == "unanswered" ? .answers : .none)
        return response
    }

    /// Deletes rule `name`, retried until alertd answers; returns what acknowledged the delete, or nil.
    private func deleteRule(_ name: String) async -> String? {
        ledger.ruleDeleting(name)
        let what = "DELETE /v1/rules/\(name) by the admin"
        var response = await exchange("DELETE", "/v1/rules/\(name)", token: Tokens.admin, lost: "rule deletes cut off")
        var retried = 0
        while response == nil, !isStopped {
            retried += 1
            response = await exchange("DELETE", "/v1/rules/\(name)", token: Tokens.admin, lost: "rule deletes cut off")
        }
        guard let response else { return nil }
        let source = "\(response.status) to \(what) (after \(retried) cut off, acknowledged by \(life))"
        // A 404 after a delete cut off: that delete was made.
        guard response.status == 200 || (retried > 0 && response.status == 404) else {
            ledger.fail("\(what) (after \(retried) cut off) answered \(response)")
            return nil
        }
        ledger.ruleDeleted(name, source: source)
        return source
    }

    // MARK: waiters

    private func wait(_ waiter: Int) async {
        while !isStopped {
            guard let alert = ledger.openAlert() else {
                try? await Task.sleep(for: .milliseconds(5))
                continue
            }
            let target = "/v1/alerts/\(alert.id)/response?wait=1"
            let what = "GET \(target) by waiter \(waiter) (sent to \(life))"
            guard let response = await exchange("GET", target, token: Tokens.watcher, lost: "long-polls cut off") else {
                continue
            }
            switch response.status {
            case 200:
                ledger.count("long-polls woken")
                ledger.resolved(alert.id, response.json, source: "200 to \(what)")
            case 204:
                break
            default:
                ledger.fail("\(what): the alert acknowledged by \(alert.source) answered \(response)")
                ledger.abandon(alert.id)
            }
        }
    }
}
