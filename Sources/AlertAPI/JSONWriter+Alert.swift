import AlertCore

extension JSONWriter {
    /// Writes an Alert in the contract's shape and member order.
    /// - Parameters:
    ///   - alert: the alert.
    ///   - redactingSecrets: true in lists: a secure field's `text` and its entry in
    ///     `result.values` become `null`.
    mutating func write(_ alert: Alert, redactingSecrets: Bool) {
        beginObject()
        key("id"); write(alert.id.rawValue)
        key("title"); write(alert.title)
        key("message"); write(alert.message)
        key("style"); write(alert.style.rawValue)
        key("tag"); write(alert.tag)
        key("presenter"); write(alert.presenter)
        key("owner")
        if let owner = alert.owner { write(owner) } else { writeNull() }
        key("animated"); write(alert.animated)
        key("buttons")
        beginArray()
        for button in alert.buttons {
            beginObject()
            key("index"); write(button.index)
            key("title"); write(button.title)
            key("style"); write(button.style.rawValue)
            endObject()
        }
        endArray()
        key("fields")
        beginArray()
        for field in alert.fields {
            beginObject()
            key("index"); write(field.index)
            key("text")
            if redactingSecrets && field.secure { writeNull() } else { write(field.text) }
            key("placeholder"); write(field.placeholder)
            key("secure"); write(field.secure)
            key("keyboard"); write(field.keyboard.name)
            endObject()
        }
        endArray()
        key("state"); write(alert.state.rawValue)
        key("result")
        if let result = alert.result {
            write(result, fields: redactingSecrets ? alert.fields : nil)
        } else {
            writeNull()
        }
        key("createdAt"); write(RFC3339.format(alert.createdAt))
        key("expiresAt")
        if let expiresAt = alert.expiresAt { write(RFC3339.format(expiresAt)) } else { writeNull() }
        key("webhook")
        if let delivery = alert.delivery { write(delivery) } else { writeNull() }
        endObject()
    }

    /// Writes a callback delivery: `{url, state, attempts, lastError, lastAttemptAt}`.
    mutating func write(_ delivery: WebhookDelivery) {
        beginObject()
        key("url"); write(delivery.url)
        key("state"); write(delivery.state.rawValue)
        key("attempts"); write(delivery.attempts)
        key("lastError")
        if let error = delivery.lastError { write(error) } else { writeNull() }
        key("lastAttemptAt")
        if let at = delivery.lastAttemptAt { write(RFC3339.format(at)) } else { writeNull() }
        endObject()
    }

    /// Writes a Result.
    /// - Parameters:
    ///   - result: the result.
    ///   - fields: when given, the values of secure fields among them are written as `null`.
    mutating func write(_ result: AlertResult, fields: [AlertField]?) {
        beginObject()
        key("buttonIndex"); write(result.buttonIndex)
        key("buttonTitle"); write(result.buttonTitle)
        key("ok"); write(result.ok)
        key("values")
        beginArray()
        for (index, value) in result.values.enumerated() {
            if let fields, index < fields.count, fields[index].secure { writeNull() } else { write(value) }
        }
        endArray()
        key("resolution"); write(result.resolution.rawValue)
        key("resolvedAt"); write(RFC3339.format(result.resolvedAt))
        endObject()
    }
}
