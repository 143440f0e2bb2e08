import AlertCore
import JSON

extension AlertDraft {
    /// The draft as JSON, every member as given (an idempotent retry is compared with it).
    var journalJSON: [UInt8] {
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.member("title")
        writer.write(title)
        writer.member("message")
        writer.write(message)
        writer.member("style")
        writer.write(style.rawValue)
        writer.member("tag")
        writer.write(tag)
        writer.member("presenter")
        writer.write(presenter)
        writer.member("animated")
        writer.write(animated)
        writer.member("buttons")
        writer.beginArray()
        for button in buttons {
            writer.beginObject()
            writer.member("title")
            writer.write(button.title)
            if let style = button.style {
                writer.member("style")
                writer.write(style.rawValue)
            }
            writer.endObject()
        }
        writer.endArray()
        writer.member("destructive")
        writer.beginArray()
        for title in destructive { writer.write(title) }
        writer.endArray()
        writer.member("fields")
        writer.beginArray()
        for field in fields {
            writeJournalField(&writer, text: field.text, placeholder: field.placeholder, secure: field.secure,
                              keyboard: field.keyboard)
        }
        writer.endArray()
        if let timeout {
            writer.member("timeout")
            writer.write(timeout)
        }
        if let callback {
            writer.member("callback")
            writer.write(callback)
        }
        writer.endObject()
        return writer.bytes
    }

    /// A draft from `journalJSON`.
    init(journal bytes: UnsafeRawBufferPointer) throws(JournalDecodingError) {
        let object = try parseJournalJSON(bytes, "draft").object("the draft")
        var buttons: [ButtonSpec] = []
        for element in try object.array("buttons") {
            let button = try element.object("a draft button")
            let style = try button.optionalString("style").map { (name) throws(JournalDecodingError) in
                guard let style = ButtonStyle(rawValue: name) else {
                    throw JournalDecodingError("a draft button has an unknown style")
                }
                return style
            }
            buttons.append(ButtonSpec(title: try button.string("title"), style: style))
        }
        var destructive: [String] = []
        for element in try object.array("destructive") {
            guard let title = element.stringValue else { throw JournalDecodingError("a destructive title is not text") }
            destructive.append(title)
        }
        var fields: [FieldSpec] = []
        for element in try object.array("fields") { fields.append(try readJournalField(element)) }
        var timeout: Double?
        if let value = object["timeout"], !value.isNull {
            guard let seconds = value.doubleValue else { throw JournalDecodingError("'timeout' is not a number") }
            timeout = seconds
        }
        self.init(
            title: try object.string("title"),
            message: try object.string("message"),
            style: try object.value("style", as: AlertStyle.self),
            tag: try object.int64("tag"),
            presenter: try object.string("presenter"),
            animated: try object.bool("animated"),
            buttons: buttons,
            destructive: destructive,
            fields: fields,
            timeout: timeout,
            callback: try object.optionalString("callback")
        )
    }
}
