import AlertCore
import AlertModel
import JSON

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
