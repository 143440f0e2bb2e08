import AlertCore
import Foundation
import JSON

/// An approval's tool call as stored members `tool` (the name) and `toolInput` (an object of texts), written only
/// for an alert or draft that has one, so the others are stored as before.
extension ToolCall {
    static func write(_ tool: ToolCall?, to writer: inout JSONWriter) {
        guard let tool else { return }
        writer.member("tool")
        writer.write(tool.name)
        writer.member("toolInput")
        writeTexts(tool.input, to: &writer)
    }

    /// The tool call in a stored object; `nil` when it has no `tool`.
    static func read(storedIn object: JSONObject) throws(StoredValueError) -> ToolCall? {
        guard let name = try object.optionalString("tool") else { return nil }
        return ToolCall(name: name, input: try texts(object["toolInput"], "toolInput"))
    }
}

/// Writes an object of texts, members sorted, so the same map always gives the same bytes.
func writeTexts(_ texts: [String: String], to writer: inout JSONWriter) {
    writer.beginObject()
    for (key, value) in texts.sorted(by: { $0.key < $1.key }) {
        writer.member(named: key)
        writer.write(value)
    }
    writer.endObject()
}

/// The object of texts `writeTexts` wrote; empty for a missing member.
func texts(_ value: JSONValue?, _ what: String) throws(StoredValueError) -> [String: String] {
    guard let value, !value.isNull else { return [:] }
    var texts: [String: String] = [:]
    for (key, member) in try value.object(what).members {
        guard let text = member.stringValue else { throw StoredValueError("'\(what)' holds a member not a string") }
        texts[key] = text
    }
    return texts
}

extension AnswerRule {
    /// The rule as one JSON document (the journal's `rules` table keeps one per rule).
    public var storedJSON: [UInt8] {
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.member("name"); writer.write(name)
        writer.member("button"); writer.write(button)
        writer.member("createdAt"); writer.write(StoredTime.milliseconds(createdAt))
        if let expiresAt {
            writer.member("expiresAt"); writer.write(StoredTime.milliseconds(expiresAt))
        }
        if let createdBy {
            writer.member("createdBy"); writer.write(createdBy)
        }
        writer.member("match")
        writer.beginObject()
        for (member, text) in [("owner", match.owner), ("presenter", match.presenter), ("title", match.title),
                               ("tool", match.tool)] {
            if let text {
                writer.member(named: member); writer.write(text)
            }
        }
        if let tag = match.tag {
            writer.member("tag"); writer.write(tag)
        }
        if !match.toolInput.isEmpty {
            writer.member("toolInput"); writeTexts(match.toolInput, to: &writer)
        }
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }

    /// The rule `storedJSON` wrote.
    public init(stored bytes: UnsafeRawBufferPointer) throws(StoredValueError) {
        let object = try parseStored(bytes, "a rule").object("a rule")
        let match = try (object["match"] ?? .object([:])).object("a rule's match")
        self.init(
            name: try object.string("name"),
            match: RuleMatch(owner: try match.optionalString("owner"), presenter: try match.optionalString("presenter"),
                             tag: try match.optionalInt64("tag"), title: try match.optionalString("title"),
                             tool: try match.optionalString("tool"),
                             toolInput: try texts(match["toolInput"], "toolInput")),
            button: try object.string("button"),
            expiresAt: try object.optionalInt64("expiresAt").map(StoredTime.date),
            createdBy: try object.optionalString("createdBy"),
            createdAt: StoredTime.date(try object.int64("createdAt"))
        )
    }
}
