import AlertCore
import Foundation
import JSON
import MicroHTTP

extension AlertDraft {
    static let members = ["title", "message", "style", "tag", "presenter", "animated", "buttons", "destructive",
                          "fields", "timeout", "callback", "responders", "groups", "fourEyes", "quorum", "tool", "toolInput",
                          "escalation"]

    /// Reads a create body in any of the seeds' shapes. Type errors are collected with
    /// their JSON pointers; the store applies the rules afterwards.
    /// - Parameters:
    ///   - json: the parsed body.
    ///   - webhooks: which `callback` URLs are allowed.
    /// - Throws: a 422 `Problem` naming every bad member.
    init(json: JSONValue, webhooks: WebhookPolicy) throws(Problem) {
        var reader = BodyReader()
        self.init()
        if let body = reader.object(json, at: "", allowed: Self.members) {
            title = reader.string(body["title"], at: "/title") ?? title
            message = reader.string(body["message"], at: "/message") ?? message
            style = reader.enumeration(body["style"], at: "/style", as: AlertStyle.self) ?? style
            tag = reader.int64(body["tag"], at: "/tag") ?? tag
            presenter = reader.string(body["presenter"], at: "/presenter") ?? presenter
            animated = reader.bool(body["animated"], at: "/animated") ?? animated
            timeout = reader.double(body["timeout"], at: "/timeout")
            callback = reader.string(body["callback"], at: "/callback")
            if let callback, let problem = webhooks.problem(with: callback) { reader.fail("/callback", problem) }
            let buttonItems = reader.array(body["buttons"], at: "/buttons") ?? []
            buttons = buttonItems.enumerated().compactMap { reader.button($1, at: "/buttons/\($0)") }
            let destructiveItems = reader.array(body["destructive"], at: "/destructive") ?? []
            destructive = destructiveItems.enumerated().compactMap { reader.item($1, at: "/destructive/\($0)") }
            let fieldItems = reader.array(body["fields"], at: "/fields") ?? []
            fields = fieldItems.enumerated().compactMap { reader.field($1, at: "/fields/\($0)") }
            policy = reader.policy(body)
            tool = reader.toolCall(body)
            escalation = reader.escalation(body["escalation"])
        }
        if !reader.issues.isEmpty { throw .validation(reader.issues) }
    }
}

extension BodyReader {
    /// A button: a plain title (`"OK"`) or `{"title": "Delete", "style": "destructive"}`.
    mutating func button(_ value: JSONValue, at pointer: @autoclosure () -> String) -> ButtonSpec? {
        if let title = value.stringValue { return ButtonSpec(title: title) }
        guard value.objectValue != nil else {
            fail(pointer(), "a button must be a title string or an object with 'title'; got \(value.typeName)")
            return nil
        }
        guard let object = self.object(value, at: pointer(), allowed: ["title", "style"]) else { return nil }
        let style = enumeration(object["style"], at: pointer() + "/style", as: ButtonStyle.self)
        guard let title = string(object["title"], at: pointer() + "/title") else {
            if object["title"] == nil || object["title"]?.isNull == true {
                fail(pointer() + "/title", "a button needs a title")
            }
            return nil
        }
        return ButtonSpec(title: title, style: style)
    }

    /// A text field: `{"text", "placeholder", "secure", "keyboard"}`, all optional.
    mutating func field(_ value: JSONValue, at pointer: @autoclosure () -> String) -> FieldSpec? {
        guard let object = self.object(value, at: pointer(), allowed: ["text", "placeholder", "secure", "keyboard"])
        else { return nil }
        var field = FieldSpec()
        field.text = string(object["text"], at: pointer() + "/text") ?? ""
        field.placeholder = string(object["placeholder"], at: pointer() + "/placeholder") ?? ""
        field.secure = bool(object["secure"], at: pointer() + "/secure") ?? false
        field.keyboard = keyboard(object["keyboard"], at: pointer() + "/keyboard") ?? .default
        return field
    }

    /// A UIKeyboardType: its name (`asciiCapable`, `UIKeyboardTypeAlphabet`) or raw value (`1`).
    mutating func keyboard(_ value: JSONValue?, at pointer: @autoclosure () -> String) -> KeyboardType? {
        guard let value, !value.isNull else { return nil }
        if let name = value.stringValue {
            if let keyboard = KeyboardType(name: name) { return keyboard }
            let names = KeyboardType.allCases.map(\.name).joined(separator: ", ")
            fail(pointer(), "unknown keyboard '\(name)'; use one of \(names), or its raw value 0–11")
            return nil
        }
        if let raw = value.int64Value {
            if let keyboard = KeyboardType(rawValue: Int(clamping: raw)) { return keyboard }
            fail(pointer(), "keyboard raw value must be 0–11 (UIKeyboardType); got \(raw)")
            return nil
        }
        fail(pointer(), "'keyboard' must be a UIKeyboardType name or raw value; got \(value.typeName)")
        return nil
    }
}

extension BodyReader {
    /// An approval's tool call: `tool` (its name) and `toolInput` (an object; each member kept as text: a string as
    /// it is, anything else as compact JSON); `toolInput` needs `tool`.
    mutating func toolCall(_ body: JSONObject) -> ToolCall? {
        let name = string(body["tool"], at: "/tool")
        let input = texts(body["toolInput"], at: "/toolInput", strict: false)
        if name == nil, !(input?.isEmpty ?? true) { fail("/toolInput", "toolInput needs tool: name the tool") }
        return name.map { ToolCall(name: $0, input: input ?? [:]) }
    }

    /// An object whose members become texts: strings as they are; other values as compact JSON unless `strict`
    /// (then only strings are allowed). `nil` when absent or null.
    mutating func texts(_ value: JSONValue?, at pointer: String, strict: Bool) -> [String: String]? {
        guard let value, !value.isNull else { return nil }
        guard let object = value.objectValue else {
            fail(pointer, "'\(pointer.dropFirst())' must be an object; got \(value.typeName)")
            return nil
        }
        var texts: [String: String] = [:]
        for (key, member) in object.members {
            if let text = member.stringValue {
                texts[key] = text
            } else if strict {
                fail(pointer + "/" + key, "must be a string (a glob); got \(member.typeName)")
            } else {
                texts[key] = String(decoding: JSONWriter.encode(member), as: UTF8.self)
            }
        }
        return texts
    }

    /// The escalation steps: `[{"after": seconds, "presenter": name, "responders": [names], "groups": [names]}]`;
    /// the store checks them (`AlertDraft.checkEscalation`).
    mutating func escalation(_ value: JSONValue?) -> [EscalationStep] {
        let items = array(value, at: "/escalation") ?? []
        return items.enumerated().compactMap { index, item in
            let pointer = "/escalation/\(index)"
            guard let step = object(item, at: pointer, allowed: ["after", "presenter", "responders", "groups"])
            else { return nil }
            func names(_ member: String) -> [String] {
                let items = array(step[member], at: "\(pointer)/\(member)") ?? []
                return items.enumerated().compactMap { self.item($1, at: "\(pointer)/\(member)/\($0)") }
            }
            let after = double(step["after"], at: pointer + "/after")
            let presenter = string(step["presenter"], at: pointer + "/presenter")
            if step["after"] == nil { fail(pointer + "/after", "an escalation step needs 'after' (seconds)") }
            if step["presenter"] == nil { fail(pointer + "/presenter", "an escalation step needs 'presenter'") }
            let (responders, groups) = (names("responders"), names("groups"))
            guard let after, let presenter else { return nil }
            return EscalationStep(after: after, presenter: presenter, responders: responders, groups: groups)
        }
    }

    /// Who may answer: `responders` and `groups` (arrays of names), `fourEyes` and `quorum`; the store checks them.
    mutating func policy(_ body: JSONObject) -> AnswerPolicy {
        func names(_ member: String) -> [String] {
            let items = array(body[member], at: "/\(member)") ?? []
            return items.enumerated().compactMap { item($1, at: "/\(member)/\($0)") }
        }
        let quorum = int64(body["quorum"], at: "/quorum") ?? 1
        return AnswerPolicy(responders: names("responders"), groups: names("groups"),
                            fourEyes: bool(body["fourEyes"], at: "/fourEyes") ?? false,
                            quorum: Int(clamping: quorum))
    }
}

extension AnswerDraft {
    /// Reads an answer body: `{"buttonIndex": 1}` or `{"button": "OK"}`, with optional `values`.
    /// - Parameters:
    ///   - json: the parsed body.
    ///   - others: more members the body may hold, read by the caller (`ids` of a batch answer).
    /// - Throws: a 422 `Problem` naming every bad member.
    init(json: JSONValue, besides others: [String] = []) throws(Problem) {
        var reader = BodyReader()
        var choice: ButtonChoice?
        var values: [String]?
        if let body = reader.object(json, at: "", allowed: ["buttonIndex", "button", "values"] + others) {
            let index = reader.int64(body["buttonIndex"], at: "/buttonIndex")
            let title = reader.string(body["button"], at: "/button")
            switch (index, title) {
            case (let index?, nil):
                if index < 0 { reader.fail("/buttonIndex", "'buttonIndex' must be 0 or more; got \(index)") }
                choice = .index(Int(clamping: index))
            case (nil, let title?):
                choice = .title(title)
            case (.some, .some):
                reader.fail("", "give either 'buttonIndex' or 'button', not both")
            case (nil, nil) where reader.issues.isEmpty:
                reader.fail("", "say which button was chosen: 'buttonIndex' (a number) or 'button' (a title)")
            case (nil, nil):
                break
            }
            if let items = reader.array(body["values"], at: "/values") {
                values = items.enumerated().compactMap { reader.item($1, at: "/values/\($0)") }
            }
        }
        guard reader.issues.isEmpty, let choice else { throw .validation(reader.issues) }
        self.init(choice: choice, values: values)
    }
}

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

extension HTTPResponse {
    /// An `application/json` response.
    static func json(_ status: Int, _ body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    /// The alert, its secure values hidden unless `caller` may see them.
    static func json(_ status: Int, alert: Alert, for caller: Caller) -> HTTPResponse {
        var writer = JSONWriter()
        writer.write(alert, redactingSecrets: !caller.seesSecrets(of: alert))
        return .json(status, writer.bytes)
    }

    /// 200 with the alert's result, secure values hidden unless `caller` may see them; 204 while pending.
    static func json(resultOf alert: Alert, for caller: Caller) -> HTTPResponse {
        guard let result = alert.result else { return HTTPResponse(status: 204) }
        var writer = JSONWriter()
        writer.write(result, fields: caller.seesSecrets(of: alert) ? nil : alert.fields)
        return .json(200, writer.bytes)
    }

    static func json(_ status: Int, result: AlertResult) -> HTTPResponse {
        var writer = JSONWriter()
        writer.write(result, fields: nil)
        return .json(status, writer.bytes)
    }
}

/// RFC 3339 timestamps as alertd writes them, without `DateFormatter`: always UTC with milliseconds
/// (`2026-11-30T09:34:28.123Z`). alertd reads no timestamps; the tests' reader is `RFC3339.parse` in their support.
enum RFC3339 {
    /// 0000-01-01T00:00:00.000Z in milliseconds since 1970.
    private static let minimumMilliseconds: Int64 = -62_167_219_200_000
    /// 9999-12-31T23:59:59.999Z in milliseconds since 1970.
    private static let maximumMilliseconds: Int64 = 253_402_300_799_999
    /// Seconds from 1970 to 2001, `Date`'s reference date.
    static let referenceOffset: Int64 = 978_307_200

    /// Formats `date` in UTC with milliseconds, rounded to the nearest millisecond and clamped to years
    /// 0000 through 9999.
    static func format(_ date: Date) -> String {
        // Both terms are whole numbers far below 2^53, so the sum is exact.
        let scaled = (date.timeIntervalSinceReferenceDate * 1000).rounded() + Double(referenceOffset * 1000)
        let milliseconds: Int64 = scaled.isNaN
            ? 0 : Int64(min(max(scaled, Double(minimumMilliseconds)), Double(maximumMilliseconds)))
        let (seconds, millisecond) = floorDivide(milliseconds, 1000)
        // Arithmetic, not gmtime_r: glibc's gmtime_r takes the process-wide tzset lock, and every request's
        // access-log line and every alert's dates come through here, on both HTTP threads.
        let (days, secondOfDay) = floorDivide(seconds, 86_400)
        let (year, month, day) = civilFromDays(Int(days))
        let hour = Int(secondOfDay) / 3600, minute = Int(secondOfDay) % 3600 / 60, second = Int(secondOfDay) % 60
        return String(unsafeUninitializedCapacity: 24) { buffer in
            func put(_ value: Int, _ width: Int, at offset: Int) {
                var value = value
                for index in stride(from: offset + width - 1, through: offset, by: -1) {
                    buffer[index] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
            }
            put(year, 4, at: 0)
            buffer[4] = UInt8(ascii: "-")
            put(month, 2, at: 5)
            buffer[7] = UInt8(ascii: "-")
            put(day, 2, at: 8)
            buffer[10] = UInt8(ascii: "T")
            put(hour, 2, at: 11)
            buffer[13] = UInt8(ascii: ":")
            put(minute, 2, at: 14)
            buffer[16] = UInt8(ascii: ":")
            put(second, 2, at: 17)
            buffer[19] = UInt8(ascii: ".")
            put(Int(millisecond), 3, at: 20)
            buffer[23] = UInt8(ascii: "Z")
            return 24
        }
    }

    /// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`).
    static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468  // days from 0000-03-01
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097  // [0, 146096]
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365  // [0, 399]
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)  // [0, 365], from March 1
        let monthFromMarch = (5 * dayOfYear + 2) / 153  // [0, 11]
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let quotient = value / divisor - (value % divisor < 0 ? 1 : 0)
        return (quotient, value - quotient * divisor)
    }
}
