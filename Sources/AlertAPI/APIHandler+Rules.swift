import AlertCore
import Foundation
import JSON
import MicroHTTP

/// `/v1/rules` and `/v1/rules/{name}`: the rules that answer alerts (`AnswerRule`), for admin tokens only. A rule
/// made here answers every matching pending alert before the `201`, which lists them (`answered`).
extension APIHandler {
    /// `GET /v1/rules`: every rule, oldest first, expired ones marked.
    func listRules() -> HTTPReply {
        onRead(caughtUp: true, { store in store.answerRules }) { rules in
            let now = Date()
            var writer = JSONWriter(capacity: 256)
            writer.beginObject()
            writer.member("rules")
            writer.beginArray()
            for rule in rules { writer.write(rule, now: now) }
            writer.endArray()
            writer.endObject()
            return .json(200, writer.bytes)
        }
    }

    /// `POST /v1/rules`: makes a rule in the caller's name; `201` with the rule and the ids it answered, `409`
    /// `rule-exists` for a name taken, `422` naming each bad member.
    func createRule(_ route: RouteRequest) throws(Problem) -> HTTPReply {
        let rule = try AnswerRule(json: try Self.parse(route.request.body), createdBy: route.caller.name)
        let pending = PendingResponse()
        store.writeRule(.add(rule)) { outcome in
            switch outcome {
            case .success(let written):
                var writer = JSONWriter(capacity: 256)
                writer.write(written.rule, now: Date(), answered: written.answered)
                var response = HTTPResponse.json(201, writer.bytes)
                response.headers.add("Location", "/v1/rules/\(written.rule.name)")
                pending.deliver(response)
            case .failure(let error):
                pending.deliver(Problem(error).response)
            }
        }
        return pending.reply()
    }

    /// `GET /v1/rules/{name}`.
    func readRule(_ route: RouteRequest) -> HTTPReply {
        let name = route.id.rawValue
        return onRead(caughtUp: true, { store throws(AlertStoreError) in
            guard let rule = store.answerRules.first(where: { $0.name == name }) else { throw .ruleNotFound(name) }
            return rule
        }) { rule in
            var writer = JSONWriter(capacity: 256)
            writer.write(rule, now: Date())
            return .json(200, writer.bytes)
        }
    }

    /// `DELETE /v1/rules/{name}`: `200` with the rule removed.
    func deleteRule(_ route: RouteRequest) -> HTTPReply {
        let pending = PendingResponse()
        store.writeRule(.remove(route.id.rawValue)) { outcome in
            switch outcome {
            case .success(let written):
                var writer = JSONWriter(capacity: 256)
                writer.write(written.rule, now: Date())
                pending.deliver(.json(200, writer.bytes))
            case .failure(let error):
                pending.deliver(Problem(error).response)
            }
        }
        return pending.reply()
    }
}

extension AnswerRule {
    static let members = ["name", "match", "button", "expiresIn"]
    static let matchMembers = ["owner", "presenter", "tag", "title", "tool", "toolInput"]

    /// Reads a create body: `name`, `match` (`owner`, `presenter`, `tag`, `title`, `tool`, `toolInput`), `button`,
    /// `expiresIn` (seconds, optional); then checks the rule.
    /// - Throws: a 422 `Problem` naming every bad member.
    init(json: JSONValue, createdBy: String?) throws(Problem) {
        var reader = BodyReader()
        let now = Date()
        self.init(name: "", match: RuleMatch(), button: "", createdBy: createdBy, createdAt: now)
        if let body = reader.object(json, at: "", allowed: Self.members) {
            name = reader.string(body["name"], at: "/name") ?? ""
            button = reader.string(body["button"], at: "/button") ?? ""
            if let seconds = reader.double(body["expiresIn"], at: "/expiresIn") {
                if seconds.isFinite, seconds > 0, seconds <= 10 * 365 * 86400 {
                    // Whole milliseconds, rounded up and at least one past now: any expiresIn above 0 is in the future.
                    let milliseconds = ((now.timeIntervalSince1970 + seconds) * 1000).rounded(.up)
                    let floor = (now.timeIntervalSince1970 * 1000).rounded(.down) + 1
                    expiresAt = Date(timeIntervalSince1970: max(milliseconds, floor) / 1000)
                } else {
                    reader.fail("/expiresIn", "expiresIn is seconds until the rule expires: above 0, at most 10 years")
                }
            }
            if let object = reader.object(body["match"] ?? .object([:]), at: "/match", allowed: Self.matchMembers) {
                match = RuleMatch(
                    owner: reader.string(object["owner"], at: "/match/owner"),
                    presenter: reader.string(object["presenter"], at: "/match/presenter"),
                    tag: reader.int64(object["tag"], at: "/match/tag"),
                    title: reader.string(object["title"], at: "/match/title"),
                    tool: reader.string(object["tool"], at: "/match/tool"),
                    toolInput: reader.texts(object["toolInput"], at: "/match/toolInput", strict: true) ?? [:])
            }
            if reader.issues.isEmpty {
                for issue in issues(at: now) { reader.fail(issue.pointer, issue.detail) }
            }
        }
        if !reader.issues.isEmpty { throw .validation(reader.issues) }
    }
}

extension JSONWriter {
    /// Writes a rule: `name`, `match`, `button`, `expiresAt`, `expired`, `createdBy`, `createdAt`, and the ids it
    /// answered when made (`answered`, on create only).
    mutating func write(_ rule: AnswerRule, now: Date, answered: [AlertID]? = nil) {
        beginObject()
        member("name"); write(rule.name)
        member("match")
        beginObject()
        for (name, text) in [("owner", rule.match.owner), ("presenter", rule.match.presenter),
                             ("title", rule.match.title), ("tool", rule.match.tool)] {
            if let text { member(named: name); write(text) }
        }
        if let tag = rule.match.tag { member("tag"); write(tag) }
        if !rule.match.toolInput.isEmpty { member("toolInput"); write(texts: rule.match.toolInput) }
        endObject()
        member("button"); write(rule.button)
        member("responder"); write(rule.responder)
        member("expiresAt")
        if let expiresAt = rule.expiresAt { write(RFC3339.format(expiresAt)) } else { writeNull() }
        member("expired"); write(rule.isExpired(at: now))
        member("createdBy")
        if let createdBy = rule.createdBy { write(createdBy) } else { writeNull() }
        member("createdAt"); write(RFC3339.format(rule.createdAt))
        if let answered {
            member("answered")
            beginArray()
            for id in answered { write(id.rawValue) }
            endArray()
        }
        endObject()
    }
}
