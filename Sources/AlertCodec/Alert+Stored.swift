import AlertCore
import JSON

extension Alert {
    /// The whole alert as one JSON document (the cluster's tables keep one per alert and per event): every member the
    /// store needs to rebuild it; dates in whole milliseconds since 1970 (`StoredTime`); the delivery only as its
    /// callback URL (its progress is kept beside it).
    public var storedJSON: [UInt8] {
        var writer = JSONWriter(capacity: 512)
        writer.beginObject()
        writer.member("id")
        writer.write(id.rawValue)
        writer.member("sequence")
        writer.write(Int64(bitPattern: sequence))
        StoredHead(title: title, message: message, style: style, tag: tag, presenter: presenter, animated: animated)
            .write(to: &writer)
        writer.member("buttons")
        AlertButton.write(buttons, to: &writer)
        writer.member("fields")
        AlertField.write(fields, to: &writer)
        writer.member("createdAt")
        writer.write(StoredTime.milliseconds(createdAt))
        if let expiresAt {
            writer.member("expiresAt")
            writer.write(StoredTime.milliseconds(expiresAt))
        }
        if let callback = delivery?.url {
            writer.member("callback")
            writer.write(callback)
        }
        if let owner {
            writer.member("owner")
            writer.write(owner)
        }
        policy.write(to: &writer)
        Vote.write(votes, to: &writer)
        ToolCall.write(tool, to: &writer)
        EscalationStep.write(escalation, to: &writer)
        Escalation.write(escalated, to: &writer)
        if let result {
            writer.member("result")
            result.write(to: &writer)
        }
        writer.endObject()
        return writer.bytes
    }

    /// The alert `storedJSON` wrote, from the bytes of its text: a new alert in one pass (`StoredCursor`), any
    /// other through the tree of its JSON.
    public init(stored bytes: UnsafeRawBufferPointer) throws(StoredValueError) {
        if let alert = StoredCursor.newAlert(bytes) {
            self = alert
            return
        }
        let object = try parseStored(bytes, "an alert").object("an alert")
        guard let buttons = object["buttons"], let fields = object["fields"] else {
            throw StoredValueError("an alert lacks its buttons or fields")
        }
        let head = try StoredHead(object)
        self.init(
            id: AlertID(rawValue: try object.string("id")),
            sequence: UInt64(bitPattern: try object.int64("sequence")),
            title: head.title, message: head.message, style: head.style,
            tag: head.tag, presenter: head.presenter, animated: head.animated,
            buttons: try AlertButton.read(buttons),
            fields: try AlertField.read(fields),
            result: try object["result"].flatMap { value throws(StoredValueError) in
                value.isNull ? nil : try AlertResult(storedObject: value.object("the result"))
            },
            createdAt: StoredTime.date(try object.int64("createdAt")),
            expiresAt: try object.optionalInt64("expiresAt").map(StoredTime.date),
            delivery: try object.optionalString("callback").map(WebhookDelivery.init(url:)),
            owner: try object.optionalString("owner")
        )
        policy = try AnswerPolicy(storedIn: object)
        votes = try Vote.votes(storedIn: object)
        tool = try ToolCall.read(storedIn: object)
        escalation = try EscalationStep.steps(storedIn: object)
        escalated = try Escalation.taken(storedIn: object)
    }
}
