import JSON

/// Reading the journal's small JSON values (buttons, fields, results, drafts) tolerantly: unknown members are
/// skipped, so a later version may add members without a migration.
extension JSONObject {
    func string(_ key: String) throws(JournalDecodingError) -> String {
        guard let value = self[key]?.stringValue else { throw JournalDecodingError("'\(key)' is not a string") }
        return value
    }

    func optionalString(_ key: String) throws(JournalDecodingError) -> String? {
        guard let value = self[key], !value.isNull else { return nil }
        guard let string = value.stringValue else { throw JournalDecodingError("'\(key)' is not a string") }
        return string
    }

    func int64(_ key: String) throws(JournalDecodingError) -> Int64 {
        guard let value = self[key]?.int64Value else { throw JournalDecodingError("'\(key)' is not an integer") }
        return value
    }

    func bool(_ key: String) throws(JournalDecodingError) -> Bool {
        guard let value = self[key]?.boolValue else { throw JournalDecodingError("'\(key)' is not a boolean") }
        return value
    }

    func array(_ key: String) throws(JournalDecodingError) -> [JSONValue] {
        guard let value = self[key]?.arrayValue else { throw JournalDecodingError("'\(key)' is not an array") }
        return value
    }

    /// The member parsed as a raw-value enum.
    func value<Value: RawRepresentable>(_ key: String, as type: Value.Type) throws(JournalDecodingError) -> Value
    where Value.RawValue == String {
        guard let value = Value(rawValue: try string(key)) else {
            throw JournalDecodingError("'\(key)' has an unknown value")
        }
        return value
    }
}

extension JSONValue {
    /// The object, or a decoding error naming `what`.
    func object(_ what: String) throws(JournalDecodingError) -> JSONObject {
        guard let object = objectValue else { throw JournalDecodingError("\(what) is not an object") }
        return object
    }
}

/// Parses a journal JSON column.
func parseJournalJSON(_ bytes: UnsafeRawBufferPointer, _ what: String) throws(JournalDecodingError) -> JSONValue {
    do {
        return try JSONParser.parse(bytes, maxDepth: 8)
    } catch {
        throw JournalDecodingError("\(what): \(error)")
    }
}
