import AlertCore
import JSON

extension AlertDraft {
    /// The draft as JSON, every member as given: the same draft always gives the same bytes, so an idempotent retry
    /// is compared with the draft that created the alert by comparing them.
    public var storedJSON: [UInt8] {
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        StoredHead(title: title, message: message, style: style, tag: tag, presenter: presenter, animated: animated)
            .write(to: &writer)
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
            FieldSpec.write(text: field.text, placeholder: field.placeholder, secure: field.secure,
                            keyboard: field.keyboard, to: &writer)
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
        policy.write(to: &writer)
        ToolCall.write(tool, to: &writer)
        EscalationStep.write(escalation, to: &writer)
        writer.endObject()
        return writer.bytes
    }

    /// A draft from `storedJSON`.
    public init(stored bytes: UnsafeRawBufferPointer) throws(StoredValueError) {
        let object = try parseStored(bytes, "draft").object("the draft")
        var buttons: [ButtonSpec] = []
        for element in try object.array("buttons") {
            let button = try element.object("a draft button")
            let style = try button.optionalString("style").map { (name) throws(StoredValueError) in
                guard let style = ButtonStyle(rawValue: name) else {
                    throw StoredValueError("a draft button has an unknown style")
                }
                return style
            }
            buttons.append(ButtonSpec(title: try button.string("title"), style: style))
        }
        var fields: [FieldSpec] = []
        for element in try object.array("fields") { fields.append(try FieldSpec.read(element)) }
        var timeout: Double?
        if let value = object["timeout"], !value.isNull {
            guard let seconds = value.doubleValue else { throw StoredValueError("'timeout' is not a number") }
            timeout = seconds
        }
        guard let destructive = object["destructive"] else { throw StoredValueError("'destructive' is not an array") }
        let head = try StoredHead(object)
        self.init(
            title: head.title, message: head.message, style: head.style,
            tag: head.tag, presenter: head.presenter, animated: head.animated,
            buttons: buttons,
            destructive: try destructive.strings("the destructive titles"),
            fields: fields,
            timeout: timeout,
            callback: try object.optionalString("callback")
        )
        policy = try AnswerPolicy(storedIn: object)
        tool = try ToolCall.read(storedIn: object)
        escalation = try EscalationStep.steps(storedIn: object)
    }
}
