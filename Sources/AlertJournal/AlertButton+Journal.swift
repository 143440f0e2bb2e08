import AlertCore
import JSON

extension AlertButton {
    /// `[{"title":"No","style":"cancel"},…]`: a button's index is its position.
    static func journalJSON(_ buttons: [AlertButton]) -> [UInt8] {
        var writer = JSONWriter(capacity: 64)
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
        return writer.bytes
    }

    /// Buttons from `journalJSON(_:)`.
    static func journalButtons(_ bytes: UnsafeRawBufferPointer) throws(JournalDecodingError) -> [AlertButton] {
        guard let elements = try parseJournalJSON(bytes, "buttons").arrayValue else {
            throw JournalDecodingError("buttons are not an array")
        }
        var buttons: [AlertButton] = []
        buttons.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            let object = try element.object("a button")
            buttons.append(
                AlertButton(index: index, title: try object.string("title"), style: try object.value("style", as: ButtonStyle.self)))
        }
        return buttons
    }
}
