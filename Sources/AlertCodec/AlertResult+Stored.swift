import AlertCore
import JSON

extension AlertResult {
    /// `{"buttonIndex":1,"buttonTitle":"Yes","ok":true,"values":[],"resolution":"answered","resolvedAt":ms}`, and
    /// `"responder"` when a token's name answered.
    ///
    /// An object, so that members can be added without a migration: readers skip members they do not know.
    public var storedJSON: [UInt8] {
        var writer = JSONWriter(capacity: 128)
        write(to: &writer)
        return writer.bytes
    }

    /// A result from `storedJSON`.
    public init(stored bytes: UnsafeRawBufferPointer) throws(StoredValueError) {
        try self.init(storedObject: try parseStored(bytes, "result").object("the result"))
    }

    func write(to writer: inout JSONWriter) {
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
        writer.write(StoredTime.milliseconds(resolvedAt))
        if let responder {
            writer.member("responder")
            writer.write(responder)
        }
        Vote.write(votes, to: &writer)
        writer.endObject()
    }

    init(storedObject object: JSONObject) throws(StoredValueError) {
        guard let values = object["values"] else { throw StoredValueError("'values' is not an array") }
        self.init(
            buttonIndex: Int(try object.int64("buttonIndex")),
            buttonTitle: try object.string("buttonTitle"),
            ok: try object.bool("ok"),
            values: try values.strings("the result's values"),
            resolution: try object.value("resolution", as: Resolution.self),
            resolvedAt: StoredTime.date(try object.int64("resolvedAt")),
            responder: try object.optionalString("responder")
        )
        votes = try Vote.votes(storedIn: object)
    }
}
