import AlertCore
import JSON

extension AlertField {
    /// `[{"text":"","placeholder":"","secure":false,"keyboard":0},…]`: a field's index is its position; the
    /// keyboard is its `UIKeyboardType` number.
    static func journalJSON(_ fields: [AlertField]) -> [UInt8] {
        var writer = JSONWriter(capacity: 16)
        writer.beginArray()
        for field in fields {
            writeJournalField(&writer, text: field.text, placeholder: field.placeholder, secure: field.secure,
                              keyboard: field.keyboard)
        }
        writer.endArray()
        return writer.bytes
    }

    /// Fields from `journalJSON(_:)`.
    static func journalFields(_ bytes: UnsafeRawBufferPointer) throws(JournalDecodingError) -> [AlertField] {
        guard bytes.count != 2 else { return [] }  // "[]", the common case
        guard let elements = try parseJournalJSON(bytes, "fields").arrayValue else {
            throw JournalDecodingError("fields are not an array")
        }
        var fields: [AlertField] = []
        fields.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            let spec = try readJournalField(element)
            fields.append(AlertField(index: index, text: spec.text, placeholder: spec.placeholder, secure: spec.secure,
                                     keyboard: spec.keyboard))
        }
        return fields
    }
}

/// Writes one text field as an object: shared by alerts' fields and drafts' field specs.
func writeJournalField(
    _ writer: inout JSONWriter, text: String, placeholder: String, secure: Bool, keyboard: KeyboardType
) {
    writer.beginObject()
    writer.member("text")
    writer.write(text)
    writer.member("placeholder")
    writer.write(placeholder)
    writer.member("secure")
    writer.write(secure)
    writer.member("keyboard")
    writer.write(keyboard.rawValue)
    writer.endObject()
}

/// Reads one text field written by `writeJournalField`.
func readJournalField(_ value: JSONValue) throws(JournalDecodingError) -> FieldSpec {
    let object = try value.object("a field")
    guard let keyboard = KeyboardType(rawValue: Int(try object.int64("keyboard"))) else {
        throw JournalDecodingError("a field has an unknown keyboard")
    }
    return FieldSpec(text: try object.string("text"), placeholder: try object.string("placeholder"),
                     secure: try object.bool("secure"), keyboard: keyboard)
}
