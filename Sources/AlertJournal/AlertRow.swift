import AlertCodec
import AlertCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An alert as the columns of a row: the same columns, in the same order, in `alerts` and in `event_alerts`.
///
/// Scalars have a column each; only the small arrays (buttons, fields) and the result are JSON text.
enum AlertRow {
    /// The columns, in binding and reading order.
    static let columns = """
        sequence, id, owner, presenter, title, message, style, tag, animated, buttons, fields, created_at, \
        expires_at, callback, delivery_state, delivery_attempts, delivery_last_error, delivery_last_attempt_at, \
        result, policy
        """
    /// How many columns `columns` names.
    static let columnCount: Int32 = 20
    /// `?, ?, …` for `columns`.
    static let placeholders = Array(repeating: "?", count: Int(columnCount)).joined(separator: ", ")

    /// Binds `alert` to parameters `first ..< first + columnCount`, its buttons and fields encoded through `encoding`.
    static func bind(
        _ alert: Alert, to statement: SQLiteStatement, from first: Int32, encoding: inout AlertRowEncoding
    ) {
        statement.bind(Int64(bitPattern: alert.sequence), at: first)
        statement.bind(alert.id.rawValue, at: first + 1)
        statement.bind(alert.owner, at: first + 2)
        statement.bind(alert.presenter, at: first + 3)
        statement.bind(alert.title, at: first + 4)
        statement.bind(alert.message, at: first + 5)
        statement.bind(alert.style.rawValue, at: first + 6)
        statement.bind(alert.tag, at: first + 7)
        statement.bind(alert.animated ? 1 : 0, at: first + 8)
        statement.bind(text: encoding.buttons(alert.buttons), at: first + 9)
        statement.bind(text: encoding.fields(alert.fields), at: first + 10)
        statement.bind(JournalTime.milliseconds(alert.createdAt), at: first + 11)
        statement.bind(alert.expiresAt.map(JournalTime.milliseconds), at: first + 12)
        bindDelivery(alert.delivery, to: statement, from: first + 13)
        statement.bind(text: alert.result?.storedJSON, at: first + 18)
        statement.bind(text: alert.storedPolicyJSON, at: first + 19)
    }

    /// Binds a delivery to five parameters: callback, state, attempts, last error, last attempt.
    static func bindDelivery(_ delivery: WebhookDelivery?, to statement: SQLiteStatement, from first: Int32) {
        statement.bind(delivery?.url, at: first)
        statement.bind(delivery?.state.rawValue, at: first + 1)
        statement.bind(delivery.map { Int64($0.attempts) }, at: first + 2)
        statement.bind(delivery?.lastError, at: first + 3)
        statement.bind(delivery?.lastAttemptAt.map(JournalTime.milliseconds), at: first + 4)
    }

    /// Reads the alert in columns `first ..< first + columnCount` of the current row.
    static func read(
        from statement: SQLiteStatement, at first: Int32, cache: inout AlertRowCache
    ) throws(JournalDecodingError) -> Alert {
        guard let style = AlertStyle(rawValue: statement.text(at: first + 6)) else {
            throw JournalDecodingError("an alert has an unknown style")
        }
        var alert = Alert(
            id: AlertID(rawValue: statement.text(at: first + 1)),
            sequence: UInt64(bitPattern: statement.int64(at: first)),
            title: statement.text(at: first + 4),
            message: statement.text(at: first + 5),
            style: style,
            tag: statement.int64(at: first + 7),
            presenter: statement.text(at: first + 3),
            animated: statement.int64(at: first + 8) != 0,
            buttons: try cache.buttons(statement.bytes(at: first + 9)),
            fields: try cache.fields(statement.bytes(at: first + 10)),
            result: statement.isNull(at: first + 18) ? nil : try AlertResult(stored: statement.bytes(at: first + 18)),
            createdAt: JournalTime.date(statement.int64(at: first + 11)),
            expiresAt: statement.optionalInt64(at: first + 12).map(JournalTime.date),
            delivery: try readDelivery(from: statement, at: first + 13),
            owner: statement.optionalText(at: first + 2)
        )
        if !statement.isNull(at: first + 19) { try alert.readStoredPolicy(statement.bytes(at: first + 19)) }
        return alert
    }

    /// Reads the five delivery columns, or nil when the alert has no callback.
    private static func readDelivery(
        from statement: SQLiteStatement, at first: Int32
    ) throws(JournalDecodingError) -> WebhookDelivery? {
        guard let url = statement.optionalText(at: first) else { return nil }
        var delivery = WebhookDelivery(url: url)
        guard let state = WebhookDelivery.State(rawValue: statement.text(at: first + 1)) else {
            throw JournalDecodingError("a delivery has an unknown state")
        }
        delivery.state = state
        delivery.attempts = Int(statement.int64(at: first + 2))
        delivery.lastError = statement.optionalText(at: first + 3)
        delivery.lastAttemptAt = statement.optionalInt64(at: first + 4).map(JournalTime.date)
        return delivery
    }
}

/// The JSON of the buttons and fields of the row written last, with the values: alerts in a row often share them (the
/// same producer), and comparing the values costs far less than encoding them again. The writer's counterpart of
/// `AlertRowCache`.
struct AlertRowEncoding {
    private var buttons = Memo<[AlertButton]>()
    private var fields = Memo<[AlertField]>()

    /// The stored JSON of `value`, encoded unless it equals the previous row's buttons.
    mutating func buttons(_ value: [AlertButton]) -> [UInt8] {
        buttons.json(value, AlertButton.storedJSON)
    }

    /// The stored JSON of `value`, encoded unless it equals the previous row's fields.
    mutating func fields(_ value: [AlertField]) -> [UInt8] {
        fields.json(value, AlertField.storedJSON)
    }

    private struct Memo<Value: Equatable> {
        private var last: (value: Value, json: [UInt8])?

        mutating func json(_ value: Value, _ encode: (Value) -> [UInt8]) -> [UInt8] {
            if let last, last.value == value { return last.json }
            let json = encode(value)
            last = (value, json)
            return json
        }
    }
}

/// The buttons and fields of the row read last, with their JSON: alerts in a row often share them (the same
/// producer), and comparing bytes costs far less than parsing them again.
struct AlertRowCache {
    private var buttons = Memo<[AlertButton]>()
    private var fields = Memo<[AlertField]>()

    /// The buttons of `bytes`, parsed unless they equal the previous row's.
    mutating func buttons(_ bytes: UnsafeRawBufferPointer) throws(JournalDecodingError) -> [AlertButton] {
        try buttons.value(bytes, AlertButton.stored)
    }

    /// The fields of `bytes`, parsed unless they equal the previous row's.
    mutating func fields(_ bytes: UnsafeRawBufferPointer) throws(JournalDecodingError) -> [AlertField] {
        try fields.value(bytes, AlertField.stored)
    }

    /// The value decoded from the last bytes seen, and those bytes.
    private struct Memo<Value> {
        private var json: [UInt8] = []
        private var decoded: Value?

        mutating func value(
            _ bytes: UnsafeRawBufferPointer,
            _ decode: (UnsafeRawBufferPointer) throws(JournalDecodingError) -> Value
        ) throws(JournalDecodingError) -> Value {
            if let decoded, json.count == bytes.count, bytes.isEmpty || same(bytes) { return decoded }
            let value = try decode(bytes)
            decoded = value
            json = Array(bytes)
            return value
        }

        private func same(_ bytes: UnsafeRawBufferPointer) -> Bool {
            json.withUnsafeBytes { memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) } == 0
        }
    }
}
