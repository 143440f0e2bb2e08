import AlertCore
import JSON

/// One text field as an object: the same for an alert's fields and a draft's field specs.
extension FieldSpec {
    static func write(
        text: String, placeholder: String, secure: Bool, keyboard: KeyboardType, to writer: inout JSONWriter
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

    /// One text field written by `write(text:placeholder:secure:keyboard:to:)`.
    static func read(_ value: JSONValue) throws(StoredValueError) -> FieldSpec {
        let object = try value.object("a field")
        guard let keyboard = KeyboardType(rawValue: Int(try object.int64("keyboard"))) else {
            throw StoredValueError("a field has an unknown keyboard")
        }
        return FieldSpec(text: try object.string("text"), placeholder: try object.string("placeholder"),
                         secure: try object.bool("secure"), keyboard: keyboard)
    }
}
