import AlertCore
import JSON

extension JSONWriter {
    /// Writes an Alert in the contract's shape and member order.
    /// - Parameters:
    ///   - alert: the alert.
    ///   - redactingSecrets: true in lists: a secure field's `text` and its entry in
    ///     `result.values` become `null`.
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
        if let delivery = alert.delivery { write(delivery) } else { writeNull() }
        endObject()
    }

    /// Writes a callback delivery: `{url, state, attempts, lastError, lastAttemptAt}`.
    mutating func write(_ delivery: WebhookDelivery) {
        beginObject()
        member("url"); write(delivery.url)
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
        endObject()
    }
}
