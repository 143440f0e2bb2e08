import AlertCore
import Foundation

/// One pass over the bytes of a stored alert in exactly the layout `Alert.storedJSON` writes for an alert without
/// policy, votes, tool, escalation or result (a new alert: what most of the cluster's events carry), building the
/// alert as it goes, with no tree of JSON values in between. Anything else (another member, an escape, whitespace,
/// a number that is not a plain integer, bytes that are not UTF-8) ends it with nil, and the tree-building reader
/// (`Alert(stored:)`) reads the text instead: both give the same alert for every text this one takes.
struct StoredCursor {
    private let bytes: UnsafeRawBufferPointer
    private var position = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// The new alert of the text, or nil when the text is not in the layout of one.
    static func newAlert(_ bytes: UnsafeRawBufferPointer) -> Alert? {
        var cursor = StoredCursor(bytes)
        return cursor.newAlert()
    }

    private mutating func newAlert() -> Alert? {
        guard take("{\"id\":"), let id = string(), take(",\"sequence\":"), let sequence = integer(),
              take(",\"title\":"), let title = string(), take(",\"message\":"), let message = string(),
              take(",\"style\":"), let style = string().flatMap(AlertStyle.init(rawValue:)),
              take(",\"tag\":"), let tag = integer(), take(",\"presenter\":"), let presenter = string(),
              take(",\"animated\":"), let animated = bool(), take(",\"buttons\":["),
              let buttons = elements({ cursor, index in cursor.button(index) }), take(",\"fields\":["),
              let fields = elements({ cursor, index in cursor.field(index) }), take(",\"createdAt\":"),
              let createdAt = integer() else { return nil }
        var expiresAt: Int64?
        if take(",\"expiresAt\":") {
            guard let value = integer() else { return nil }
            expiresAt = value
        }
        var callback: String?
        if take(",\"callback\":") {
            guard let value = string() else { return nil }
            callback = value
        }
        var owner: String?
        if take(",\"owner\":") {
            guard let value = string() else { return nil }
            owner = value
        }
        guard take("}"), position == bytes.count else { return nil }
        return Alert(id: AlertID(rawValue: id), sequence: UInt64(bitPattern: sequence), title: title, message: message,
                     style: style, tag: tag, presenter: presenter, animated: animated, buttons: buttons,
                     fields: fields, createdAt: StoredTime.date(createdAt), expiresAt: expiresAt.map(StoredTime.date),
                     delivery: callback.map(WebhookDelivery.init(url:)), owner: owner)
    }

    private mutating func button(_ index: Int) -> AlertButton? {
        guard take("{\"title\":"), let title = string(), take(",\"style\":"),
              let style = string().flatMap(ButtonStyle.init(rawValue:)), take("}") else { return nil }
        return AlertButton(index: index, title: title, style: style)
    }

    private mutating func field(_ index: Int) -> AlertField? {
        guard take("{\"text\":"), let text = string(), take(",\"placeholder\":"), let placeholder = string(),
              take(",\"secure\":"), let secure = bool(), take(",\"keyboard\":"),
              let keyboard = integer().flatMap({ KeyboardType(rawValue: Int($0)) }), take("}") else { return nil }
        return AlertField(index: index, text: text, placeholder: placeholder, secure: secure, keyboard: keyboard)
    }

    /// The elements of an array whose `[` was taken, through its `]`.
    private mutating func elements<Element>(_ element: (inout StoredCursor, Int) -> Element?) -> [Element]? {
        var elements: [Element] = []
        if take("]") { return elements }
        repeat {
            guard let next = element(&self, elements.count) else { return nil }
            elements.append(next)
        } while take(",")
        return take("]") ? elements : nil
    }

    /// Takes `literal` when the bytes at the position are exactly it.
    private mutating func take(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - position >= count,
              memcmp(bytes.baseAddress! + position, literal.utf8Start, count) == 0 else { return false }
        position += count
        return true
    }

    /// A string without escapes or control characters, in valid UTF-8.
    private mutating func string() -> String? {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { return nil }
        let start = position + 1
        var end = start
        var ascii = true
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") { break }
            if byte < 0x20 || byte == UInt8(ascii: "\\") { return nil }
            if byte >= 0x80 { ascii = false }
            end += 1
        }
        guard end < bytes.count else { return nil }
        position = end + 1
        let text = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
        return ascii ? String(decoding: text, as: UTF8.self) : String(validating: text, as: UTF8.self)
    }

    /// An integer as JSON writes one (`-`, then digits without a leading zero), of at most 18 digits.
    private mutating func integer() -> Int64? {
        var index = position
        let negative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        let first = index
        var value: Int64 = 0
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            value = value * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
            index += 1
        }
        let digits = index - first
        guard digits > 0, digits <= 18, digits == 1 || bytes[first] != UInt8(ascii: "0") else { return nil }
        if index < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index]) {
            return nil
        }
        position = index
        return negative ? -value : value
    }

    private mutating func bool() -> Bool? {
        if take("true") { return true }
        if take("false") { return false }
        return nil
    }
}
