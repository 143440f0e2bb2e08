import AlertCore
import JSON

extension AlertButton {
    /// `[{"title":"No","style":"cancel"},…]`: a button's index is its position.
    public static func storedJSON(_ buttons: [AlertButton]) -> [UInt8] {
        var writer = JSONWriter(capacity: 64)
        write(buttons, to: &writer)
        return writer.bytes
    }

    /// Buttons from `storedJSON(_:)`.
    public static func stored(_ bytes: UnsafeRawBufferPointer) throws(StoredValueError) -> [AlertButton] {
        try read(parseStored(bytes, "buttons"))
    }

    static func write(_ buttons: [AlertButton], to writer: inout JSONWriter) {
        writer.beginArray()
        for button in buttons {
            writer.beginObject()
            writer.member("title")
            writer.write(button.title)
            writer.member("style")
            writer.write(button.style.rawValue)
            writer.endObject()
        }
        writer.endArray()
    }

    static func read(_ value: JSONValue) throws(StoredValueError) -> [AlertButton] {
        guard let elements = value.arrayValue else { throw StoredValueError("buttons are not an array") }
        var buttons: [AlertButton] = []
        buttons.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            let object = try element.object("a button")
            buttons.append(AlertButton(index: index, title: try object.string("title"),
                                       style: try object.value("style", as: ButtonStyle.self)))
        }
        return buttons
    }
}
