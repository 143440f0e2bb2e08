import AlertCore
import JSON

extension AlertField {
    /// `[{"text":"","placeholder":"","secure":false,"keyboard":0},…]`: a field's index is its position; the
    /// keyboard is its `UIKeyboardType` number.
    public static func storedJSON(_ fields: [AlertField]) -> [UInt8] {
        var writer = JSONWriter(capacity: 16)
        write(fields, to: &writer)
        return writer.bytes
    }

    /// Fields from `storedJSON(_:)`.
    public static func stored(_ bytes: UnsafeRawBufferPointer) throws(StoredValueError) -> [AlertField] {
        guard bytes.count != 2 else { return [] }  // "[]", the common case
        return try read(parseStored(bytes, "fields"))
    }

    static func write(_ fields: [AlertField], to writer: inout JSONWriter) {
        writer.beginArray()
        for field in fields {
            FieldSpec.write(text: field.text, placeholder: field.placeholder, secure: field.secure,
                            keyboard: field.keyboard, to: &writer)
        }
        writer.endArray()
    }

    static func read(_ value: JSONValue) throws(StoredValueError) -> [AlertField] {
        guard let elements = value.arrayValue else { throw StoredValueError("fields are not an array") }
        var fields: [AlertField] = []
        fields.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            let spec = try FieldSpec.read(element)
            fields.append(AlertField(index: index, text: spec.text, placeholder: spec.placeholder, secure: spec.secure,
                                     keyboard: spec.keyboard))
        }
        return fields
    }
}
