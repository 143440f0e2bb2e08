import JSON

/// Reading stored JSON tolerantly: unknown members are skipped, so a later version may add members without a
/// migration; a member of the wrong type is a `StoredValueError` naming it.
extension JSONObject {
    func string(_ key: String) throws(StoredValueError) -> String {
        guard let value = self[key]?.stringValue else { throw StoredValueError("'\(key)' is not a string") }
        return value
    }

    /// The member, or nil when it is absent or null.
    func optionalString(_ key: String) throws(StoredValueError) -> String? {
        guard let value = self[key], !value.isNull else { return nil }
        guard let string = value.stringValue else { throw StoredValueError("'\(key)' is not a string") }
        return string
    }

    func int64(_ key: String) throws(StoredValueError) -> Int64 {
        guard let value = self[key]?.int64Value else { throw StoredValueError("'\(key)' is not an integer") }
        return value
    }

    /// The member, or nil when it is absent or null.
    func optionalInt64(_ key: String) throws(StoredValueError) -> Int64? {
        guard let value = self[key], !value.isNull else { return nil }
        guard let number = value.int64Value else { throw StoredValueError("'\(key)' is not an integer") }
        return number
    }

    func bool(_ key: String) throws(StoredValueError) -> Bool {
        guard let value = self[key]?.boolValue else { throw StoredValueError("'\(key)' is not a boolean") }
        return value
    }

    func array(_ key: String) throws(StoredValueError) -> [JSONValue] {
        guard let value = self[key]?.arrayValue else { throw StoredValueError("'\(key)' is not an array") }
        return value
    }

    /// The member parsed as a raw-value enum.
    func value<Value: RawRepresentable>(_ key: String, as type: Value.Type) throws(StoredValueError) -> Value
    where Value.RawValue == String {
        guard let value = Value(rawValue: try string(key)) else {
            throw StoredValueError("'\(key)' has an unknown value")
        }
        return value
    }
}

extension JSONValue {
    /// The object, or an error naming `what`.
    func object(_ what: String) throws(StoredValueError) -> JSONObject {
        guard let object = objectValue else { throw StoredValueError("\(what) is not an object") }
        return object
    }

    /// The strings of an array, or an error naming `what`.
    func strings(_ what: String) throws(StoredValueError) -> [String] {
        guard let elements = arrayValue else { throw StoredValueError("\(what) is not an array") }
        var strings: [String] = []
        strings.reserveCapacity(elements.count)
        for element in elements {
            guard let text = element.stringValue else { throw StoredValueError("\(what) holds a non-string") }
            strings.append(text)
        }
        return strings
    }
}

/// Parses a stored JSON value (`what` names it in an error).
func parseStored(_ bytes: UnsafeRawBufferPointer, _ what: String) throws(StoredValueError) -> JSONValue {
    do {
        return try JSONParser.parse(bytes, maxDepth: 8)
    } catch {
        throw StoredValueError("\(what): \(error)")
    }
}
