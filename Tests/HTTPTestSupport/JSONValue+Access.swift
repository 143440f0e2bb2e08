import JSON

extension JSONValue {
    /// The member `key` of an object; nil for a missing member or a value that is not an object.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// The object without the members `keys`; any other value as it is.
    public func removing(_ keys: Set<String>) -> JSONValue {
        guard let object = objectValue else { return self }
        return .object(JSONObject(object.members.filter { !keys.contains($0.key) }.map { ($0.key, $0.value) }))
    }

    /// Compact JSON text, for failure messages.
    public var text: String { String(decoding: JSONWriter.encode(self), as: UTF8.self) }
}
