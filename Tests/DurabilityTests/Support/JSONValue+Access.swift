import HTTPTestSupport
import JSON

extension JSONValue {
    /// The member `key` of an object; nil for a missing member or a value that is not an object.
    subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// The object without the members `keys`; any other value as it is.
    func removing(_ keys: Set<String>) -> JSONValue {
        guard let object = objectValue else { return self }
        return .object(JSONObject(object.members.filter { !keys.contains($0.key) }.map { ($0.key, $0.value) }))
    }

    /// Compact JSON text, for failure messages.
    var text: String { String(decoding: JSONWriter.encode(self), as: UTF8.self) }
}

extension WireResponse {
    /// The body parsed as JSON (`.null` when it is not JSON, which a check then notices).
    var json: JSONValue {
        (try? JSONParser.parse(body)) ?? .null
    }

    /// Whether the body is an `application/problem+json` problem.
    var isProblem: Bool { headers["content-type"]?.hasPrefix("application/problem+json") == true }

    /// Whether the whole response arrived (its `Content-Length` bytes; none for a 204): only then was anything
    /// acknowledged.
    var isWhole: Bool {
        status == 204 || headers["content-length"].flatMap(Int.init) == body.count
    }
}
