import AlertCore
import JSON

extension AlertResult {
    /// `{"buttonIndex":1,"buttonTitle":"Yes","ok":true,"values":[],"resolution":"answered","resolvedAt":ms}`.
    ///
    /// An object, so that members can be added (who answered, say) without a migration: readers skip members
    /// they do not know.
    var journalJSON: [UInt8] {
        var writer = JSONWriter(capacity: 128)
        writer.beginObject()
        writer.member("buttonIndex")
        writer.write(buttonIndex)
        writer.member("buttonTitle")
        writer.write(buttonTitle)
        writer.member("ok")
        writer.write(ok)
        writer.member("values")
        writer.beginArray()
        for value in values { writer.write(value) }
        writer.endArray()
        writer.member("resolution")
        writer.write(resolution.rawValue)
        writer.member("resolvedAt")
        writer.write(JournalTime.milliseconds(resolvedAt))
        writer.endObject()
        return writer.bytes
    }

    /// A result from `journalJSON`.
    init(journal bytes: UnsafeRawBufferPointer) throws(JournalDecodingError) {
        let object = try parseJournalJSON(bytes, "result").object("the result")
        var values: [String] = []
        for value in try object.array("values") {
            guard let text = value.stringValue else { throw JournalDecodingError("a result value is not a string") }
            values.append(text)
        }
        self.init(
            buttonIndex: Int(try object.int64("buttonIndex")),
            buttonTitle: try object.string("buttonTitle"),
            ok: try object.bool("ok"),
            values: values,
            resolution: try object.value("resolution", as: Resolution.self),
            resolvedAt: JournalTime.date(try object.int64("resolvedAt"))
        )
    }
}
