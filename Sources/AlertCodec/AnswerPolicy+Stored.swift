import AlertCore
import JSON

/// The answer policy as members of a stored alert or draft: each only when it differs from the default, so an alert
/// without a policy is stored as before, and a store written before policies existed reads as the default.
extension AnswerPolicy {
    /// Writes `responders`, `groups` and `fourEyes` into the open object, each only when not the default.
    func write(to writer: inout JSONWriter) {
        if !responders.isEmpty {
            writer.member("responders")
            Self.write(responders, to: &writer)
        }
        if !groups.isEmpty {
            writer.member("groups")
            Self.write(groups, to: &writer)
        }
        if fourEyes {
            writer.member("fourEyes")
            writer.write(true)
        }
        if quorum != 1 {
            writer.member("quorum")
            writer.write(quorum)
        }
    }

    private static func write(_ names: [String], to writer: inout JSONWriter) {
        writer.beginArray()
        for name in names { writer.write(name) }
        writer.endArray()
    }

    /// The policy in a stored object; the default for members it lacks.
    init(storedIn object: JSONObject) throws(StoredValueError) {
        self.init(
            responders: try object["responders"].map { value throws(StoredValueError) in try value.strings("responders") }
                ?? [],
            groups: try object["groups"].map { value throws(StoredValueError) in try value.strings("groups") } ?? [],
            fourEyes: object["fourEyes"] == nil ? false : try object.bool("fourEyes"),
            quorum: Int(try object.optionalInt64("quorum") ?? 1)
        )
    }
}

extension AnswerPolicy {
    /// The policy as a JSON object of its own (the journal's `policy` column), or `nil` for the default policy.
    public var storedJSON: [UInt8]? {
        guard !isDefault else { return nil }
        var writer = JSONWriter(capacity: 64)
        writer.beginObject()
        write(to: &writer)
        writer.endObject()
        return writer.bytes
    }

    /// The policy `storedJSON` wrote.
    public init(stored bytes: UnsafeRawBufferPointer) throws(StoredValueError) {
        try self.init(storedIn: try parseStored(bytes, "policy").object("the policy"))
    }
}
