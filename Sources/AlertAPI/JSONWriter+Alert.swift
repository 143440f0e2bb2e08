import AlertCore
import AlertModel
import JSON

extension JSONWriter {
    /// Writes an Alert in the contract's shape and member order.
    /// - Parameters:
    ///   - alert: the alert.
    ///   - redactingSecrets: true in lists: a secure field's `text` and its entry in
    ///     `result.values` become `null`, and the callback URL loses its user information and query.
    mutating func write(_ alert: Alert, redactingSecrets: Bool) {
        beginObject()
        member("id"); write(alert.id.rawValue)
        member("title"); write(alert.title)
        member("message"); write(alert.message)
        member("style"); write(alert.style.rawValue)
        member("tag"); write(alert.tag)
        member("presenter"); write(alert.presenter)
        member("owner")
        if let owner = alert.owner { write(owner) } else { writeNull() }
        write(alert.policy)
        write(votes: alert.votes)
        write(escalation: alert)
        if let tool = alert.tool {
            member("tool"); write(tool.name)
            member("toolInput"); write(texts: tool.input)
        }
        member("animated"); write(alert.animated)
        member("buttons")
        beginArray()
        for button in alert.buttons {
            beginObject()
            member("index"); write(button.index)
            member("title"); write(button.title)
            member("style"); write(button.style.rawValue)
            endObject()
        }
        endArray()
        member("fields")
        beginArray()
        for field in alert.fields {
            beginObject()
            member("index"); write(field.index)
            member("text")
            if redactingSecrets && field.secure { writeNull() } else { write(field.text) }
            member("placeholder"); write(field.placeholder)
            member("secure"); write(field.secure)
            member("keyboard"); write(field.keyboard.name)
            endObject()
        }
        endArray()
        member("state"); write(alert.state.rawValue)
        member("result")
        if let result = alert.result {
            write(result, fields: redactingSecrets ? alert.fields : nil)
        } else {
            writeNull()
        }
        member("createdAt"); write(RFC3339.format(alert.createdAt))
        member("expiresAt")
        if let expiresAt = alert.expiresAt { write(RFC3339.format(expiresAt)) } else { writeNull() }
        member("webhook")
        if let delivery = alert.delivery {
            write(delivery, redactingCredentials: redactingSecrets)
        } else {
            writeNull()
        }
        endObject()
    }

    /// Writes an object of texts, members sorted by name.
    mutating func write(texts: [String: String]) {
        beginObject()
        for (key, text) in texts.sorted(by: { $0.key < $1.key }) {
            member(named: key); write(text)
        }
        endObject()
    }

    /// Writes the members of an answer policy into the open object: `responders`, `groups`, `fourEyes`.
    mutating func write(_ policy: AnswerPolicy) {
        member("responders")
        write(names: policy.responders)
        member("groups")
        write(names: policy.groups)
        member("fourEyes"); write(policy.fourEyes)
        member("quorum"); write(policy.quorum)
    }

    /// Writes an array of names.
    mutating func write(names: [String]) {
        beginArray()
        for name in names { write(name) }
        endArray()
    }

    /// Writes `votes`: `[{responder, buttonIndex, at}]`, oldest first.
    mutating func write(votes: [Vote]) {
        member("votes")
        beginArray()
        for vote in votes {
            beginObject()
            member("responder")
            if let responder = vote.responder { write(responder) } else { writeNull() }
            member("buttonIndex"); write(vote.buttonIndex)
            member("at"); write(RFC3339.format(vote.at))
            endObject()
        }
        endArray()
    }

    /// Writes `escalation` (the steps: `[{after, presenter, responders, groups}]`) and `escalated` (the steps taken:
    /// `[{from, to, at}]`).
    mutating func write(escalation alert: Alert) {
        member("escalation")
        beginArray()
        for step in alert.escalation {
            beginObject()
            member("after"); write(step.after)
            member("presenter"); write(step.presenter)
            member("responders")
            write(names: step.responders)
            member("groups")
            write(names: step.groups)
            endObject()
        }
        endArray()
        member("escalated")
        beginArray()
        for (index, taken) in alert.escalated.enumerated() {
            beginObject()
            member("from"); write(taken.from)
            member("to"); write(alert.escalation[index].presenter)
            member("at"); write(RFC3339.format(taken.at))
            endObject()
        }
        endArray()
    }

    /// Writes a callback delivery: `{url, state, attempts, lastError, lastAttemptAt}`.
    /// - Parameter redactingCredentials: whether `url` is written without its user information and query, which may
    ///   hold credentials (`http://user:password@host/x?sig=…`).
    mutating func write(_ delivery: WebhookDelivery, redactingCredentials: Bool) {
        beginObject()
        member("url")
        if redactingCredentials, delivery.url.contains(where: { $0 == "@" || $0 == "?" }),
           let url = try? CallbackURL(parsing: delivery.url), url.hasCredentials {
            write(url.redacted)
        } else {
            write(delivery.url)
        }
        member("state"); write(delivery.state.rawValue)
        member("attempts"); write(delivery.attempts)
        member("lastError")
        if let error = delivery.lastError { write(error) } else { writeNull() }
        member("lastAttemptAt")
        if let at = delivery.lastAttemptAt { write(RFC3339.format(at)) } else { writeNull() }
        endObject()
    }

    /// Writes a Result.
    /// - Parameters:
    ///   - result: the result.
    ///   - fields: when given, the values of secure fields among them are written as `null`.
    mutating func write(_ result: AlertResult, fields: [AlertField]?) {
        beginObject()
        member("buttonIndex"); write(result.buttonIndex)
        member("buttonTitle"); write(result.buttonTitle)
        member("ok"); write(result.ok)
        member("values")
        beginArray()
        for (index, value) in result.values.enumerated() {
            if let fields, index < fields.count, fields[index].secure { writeNull() } else { write(value) }
        }
        endArray()
        member("resolution"); write(result.resolution.rawValue)
        member("resolvedAt"); write(RFC3339.format(result.resolvedAt))
        member("responder")
        if let responder = result.responder { write(responder) } else { writeNull() }
        write(votes: result.votes)
        endObject()
    }
}

extension JSONWriter {
    /// A JSON array of `items`, each written by `write`, that ends before the item that would take it past `limit`
    /// bytes (never before the first, so a client always gets on); and how many items it holds.
    static func array<Item>(_ items: some Sequence<Item>, within limit: Int,
                            _ write: (inout JSONWriter, Item) -> Void) -> (bytes: [UInt8], count: Int) {
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        var count = 0
        for item in items {
            var writer = JSONWriter()
            write(&writer, item)
            guard count == 0 || bytes.count + 2 + writer.count <= limit else { break }
            if count > 0 { bytes.append(UInt8(ascii: ",")) }
            writer.withUnsafeBytes { bytes.append(contentsOf: $0) }
            count += 1
        }
        bytes.append(UInt8(ascii: "]"))
        return (bytes, count)
    }
}
