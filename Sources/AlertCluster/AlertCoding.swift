import AlertCore
import Foundation
import JSON

/// Alerts as the cluster's tables hold them: one JSON document per alert (in `alerts` and in each event), every
/// member the store needs to rebuild it; dates are whole milliseconds since 1970.
enum AlertCoding {
    /// The alert as JSON text.
    static func encode(_ alert: Alert) -> String {
        var writer = JSONWriter(capacity: 512)
        writer.beginObject()
        writer.member("id"); writer.write(alert.id.rawValue)
        writer.member("sequence"); writer.write(Int64(bitPattern: alert.sequence))
        writeHead(alert.title, alert.message, alert.style, alert.tag, alert.presenter, alert.animated, to: &writer)
        writer.member("buttons")
        writer.beginArray()
        for button in alert.buttons {
            writer.beginObject()
            writer.member("title"); writer.write(button.title)
            writer.member("style"); writer.write(button.style.rawValue)
            writer.endObject()
        }
        writer.endArray()
        writer.member("fields")
        writer.beginArray()
        for field in alert.fields { write(field.text, field.placeholder, field.secure, field.keyboard, to: &writer) }
        writer.endArray()
        writer.member("createdAt"); writer.write(milliseconds(alert.createdAt))
        if let expiresAt = alert.expiresAt { writer.member("expiresAt"); writer.write(milliseconds(expiresAt)) }
        if let callback = alert.delivery?.url { writer.member("callback"); writer.write(callback) }
        if let owner = alert.owner { writer.member("owner"); writer.write(owner) }
        if let result = alert.result {
            writer.member("result")
            writer.beginObject()
            writer.member("buttonIndex"); writer.write(result.buttonIndex)
            writer.member("buttonTitle"); writer.write(result.buttonTitle)
            writer.member("ok"); writer.write(result.ok)
            writer.member("values")
            writer.beginArray()
            for value in result.values { writer.write(value) }
            writer.endArray()
            writer.member("resolution"); writer.write(result.resolution.rawValue)
            writer.member("resolvedAt"); writer.write(milliseconds(result.resolvedAt))
            if let responder = result.responder { writer.member("responder"); writer.write(responder) }
            writer.endObject()
        }
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// The alert `encode(_:)` wrote.
    static func decode(_ text: String) throws(PGError) -> Alert {
        let object = try parse(text)
        var buttons: [AlertButton] = []
        for (index, element) in try object.array("buttons").enumerated() {
            let button = try element.object()
            buttons.append(AlertButton(index: index, title: try button.string("title"),
                                       style: try button.value("style", as: ButtonStyle.self)))
        }
        var fields: [AlertField] = []
        for (index, element) in try object.array("fields").enumerated() {
            let field = try element.object()
            guard let keyboard = KeyboardType(rawValue: Int(try field.int64("keyboard"))) else {
                throw PGError("a stored field has an unknown keyboard")
            }
            fields.append(AlertField(index: index, text: try field.string("text"),
                                     placeholder: try field.string("placeholder"),
                                     secure: try field.bool("secure"), keyboard: keyboard))
        }
        return Alert(
            id: AlertID(rawValue: try object.string("id")),
            sequence: UInt64(bitPattern: try object.int64("sequence")),
            title: try object.string("title"),
            message: try object.string("message"),
            style: try object.value("style", as: AlertStyle.self),
            tag: try object.int64("tag"),
            presenter: try object.string("presenter"),
            animated: try object.bool("animated"),
            buttons: buttons,
            fields: fields,
            result: try object["result"].map { value throws(PGError) in try result(value.object()) },
            createdAt: date(try object.int64("createdAt")),
            expiresAt: try object.optional("expiresAt", object.int64).map(date),
            delivery: try object.optional("callback", object.string).map(WebhookDelivery.init(url:)),
            owner: try object.optional("owner", object.string)
        )
    }

    /// A draft as JSON text, every member as given: the same draft always gives the same text, so an idempotent
    /// retry is compared with the draft that created the alert by comparing texts.
    static func encode(_ draft: AlertDraft) -> String {
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writeHead(draft.title, draft.message, draft.style, draft.tag, draft.presenter, draft.animated, to: &writer)
        writer.member("buttons")
        writer.beginArray()
        for button in draft.buttons {
            writer.beginObject()
            writer.member("title"); writer.write(button.title)
            if let style = button.style { writer.member("style"); writer.write(style.rawValue) }
            writer.endObject()
        }
        writer.endArray()
        writer.member("destructive")
        writer.beginArray()
        for title in draft.destructive { writer.write(title) }
        writer.endArray()
        writer.member("fields")
        writer.beginArray()
        for field in draft.fields { write(field.text, field.placeholder, field.secure, field.keyboard, to: &writer) }
        writer.endArray()
        if let timeout = draft.timeout { writer.member("timeout"); writer.write(timeout) }
        if let callback = draft.callback { writer.member("callback"); writer.write(callback) }
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// `date` in whole milliseconds since 1970 (the API's precision).
    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// The date of a millisecond count since 1970.
    static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// The members an alert and its draft share, as given.
    private static func writeHead(
        _ title: String, _ message: String, _ style: AlertStyle, _ tag: Int64, _ presenter: String, _ animated: Bool,
        to writer: inout JSONWriter
    ) {
        writer.member("title"); writer.write(title)
        writer.member("message"); writer.write(message)
        writer.member("style"); writer.write(style.rawValue)
        writer.member("tag"); writer.write(tag)
        writer.member("presenter"); writer.write(presenter)
        writer.member("animated"); writer.write(animated)
    }

    private static func write(
        _ text: String, _ placeholder: String, _ secure: Bool, _ keyboard: KeyboardType, to writer: inout JSONWriter
    ) {
        writer.beginObject()
        writer.member("text"); writer.write(text)
        writer.member("placeholder"); writer.write(placeholder)
        writer.member("secure"); writer.write(secure)
        writer.member("keyboard"); writer.write(keyboard.rawValue)
        writer.endObject()
    }

    private static func result(_ object: JSONObject) throws(PGError) -> AlertResult {
        var values: [String] = []
        for value in try object.array("values") {
            guard let text = value.stringValue else { throw PGError("a stored result value is not text") }
            values.append(text)
        }
        return AlertResult(
            buttonIndex: Int(try object.int64("buttonIndex")),
            buttonTitle: try object.string("buttonTitle"),
            ok: try object.bool("ok"),
            values: values,
            resolution: try object.value("resolution", as: Resolution.self),
            resolvedAt: date(try object.int64("resolvedAt")),
            responder: try object.optional("responder", object.string)
        )
    }

    private static func parse(_ text: String) throws(PGError) -> JSONObject {
        do {
            return try JSONParser.parse(Array(text.utf8), maxDepth: 8).object()
        } catch let error as PGError {
            throw error
        } catch {
            throw PGError("a stored alert is not valid JSON: \(error)")
        }
    }
}

/// Reading stored JSON: a member of the wrong type is a `PGError` naming it.
extension JSONObject {
    func string(_ key: String) throws(PGError) -> String {
        guard let value = self[key]?.stringValue else { throw PGError("stored '\(key)' is not text") }
        return value
    }

    /// The member read by `read`, or nil when it is absent or null.
    func optional<Value>(_ key: String, _ read: (String) throws(PGError) -> Value) throws(PGError) -> Value? {
        guard let value = self[key], !value.isNull else { return nil }
        return try read(key)
    }

    func int64(_ key: String) throws(PGError) -> Int64 {
        guard let value = self[key]?.int64Value else { throw PGError("stored '\(key)' is not an integer") }
        return value
    }


    func bool(_ key: String) throws(PGError) -> Bool {
        guard let value = self[key]?.boolValue else { throw PGError("stored '\(key)' is not a boolean") }
        return value
    }

    func array(_ key: String) throws(PGError) -> [JSONValue] {
        guard let value = self[key]?.arrayValue else { throw PGError("stored '\(key)' is not an array") }
        return value
    }

    func value<Value: RawRepresentable>(_ key: String, as type: Value.Type) throws(PGError) -> Value
    where Value.RawValue == String {
        guard let value = Value(rawValue: try string(key)) else { throw PGError("stored '\(key)' is unknown") }
        return value
    }
}

extension JSONValue {
    func object() throws(PGError) -> JSONObject {
        guard let object = objectValue else { throw PGError("a stored value is not an object") }
        return object
    }
}
