import AlertClient
import JSON

/// JSON for `--json`: one compact line, members in the order of `openapi.yaml`, `null` written out, written by the
/// `JSON` module's writer (the one alertd writes its answers with). `JSONEncoder` on Linux orders members by hash
/// and leaves out `nil`s.
enum JSONOutput {
    /// A Result.
    static func result(_ result: RemoteResult) -> String {
        text(value(result))
    }

    /// An Alert.
    static func alert(_ alert: RemoteAlert) -> String {
        text(value(alert))
    }

    /// A list of alerts with its change index, and `next` when `--limit` left alerts out.
    static func list(_ list: RemoteAlertList) -> String {
        var members: [(String, JSONValue)] = [("index", integer(list.index)), ("alerts", .array(list.alerts.map(value)))]
        if let next = list.next { members.append(("next", integer(next))) }
        return text(.object(JSONObject(members)))
    }

    /// An index or sequence number past Int64 (never seen) is written as a number rather than trapping.
    private static func integer(_ value: UInt64) -> JSONValue {
        Int64(exactly: value).map(JSONValue.integer) ?? .number(Double(value))
    }

    private static func text(_ value: JSONValue) -> String {
        var writer = JSONWriter()
        writer.write(value)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    private static func value(_ result: RemoteResult) -> JSONValue {
        .object([
            "buttonIndex": .integer(Int64(result.buttonIndex)), "buttonTitle": .string(result.buttonTitle),
            "ok": .bool(result.ok), "values": .array(result.values.map(optional)),
            "resolution": .string(result.resolution), "resolvedAt": .string(result.resolvedAt),
            "responder": optional(result.responder),
        ])
    }

    private static func value(_ alert: RemoteAlert) -> JSONValue {
        .object([
            "id": .string(alert.id), "title": .string(alert.title), "message": .string(alert.message),
            "style": .string(alert.style), "tag": .integer(alert.tag), "presenter": .string(alert.presenter),
            "animated": .bool(alert.animated), "buttons": .array(alert.buttons.map(value)),
            "fields": .array(alert.fields.map(value)), "state": .string(alert.state),
            "result": alert.result.map(value) ?? .null, "createdAt": .string(alert.createdAt),
            "expiresAt": optional(alert.expiresAt),
        ])
    }

    private static func value(_ button: RemoteButton) -> JSONValue {
        .object([
            "index": .integer(Int64(button.index)), "title": .string(button.title), "style": .string(button.style),
        ])
    }

    private static func value(_ field: RemoteField) -> JSONValue {
        .object([
            "index": .integer(Int64(field.index)), "text": optional(field.text),
            "placeholder": .string(field.placeholder), "secure": .bool(field.secure),
            "keyboard": .string(field.keyboard),
        ])
    }

    private static func optional(_ text: String?) -> JSONValue {
        text.map(JSONValue.string) ?? .null
    }
}
