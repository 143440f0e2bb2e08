import JSON
/// Reads typed values out of a parsed JSON body, collecting every type error with the
/// JSON pointer of the member at fault, so one 422 can name all of them. Pointers are autoclosures, built only
/// when a member is at fault: building them for every member read was ~4% of a valid create (issue 28).
struct BodyReader {
    private(set) var issues: [Problem.Item] = []

    /// Records a problem at `pointer`.
    mutating func fail(_ pointer: String, _ detail: String) {
        issues.append(Problem.Item(location: .pointer(pointer), detail: detail))
    }

    /// The object at the top of a body, with every member checked against `allowed`.
    mutating func object(_ value: JSONValue, at pointer: @autoclosure () -> String, allowed: [String]) -> JSONObject? {
        guard let object = value.objectValue else {
            fail(pointer(), "\(Self.name(pointer())) must be an object; got \(value.typeName)")
            return nil
        }
        for key in object.keys where !allowed.contains(key) {
            fail(pointer() + "/" + Self.escape(key),
                 "unknown member '\(key)'; allowed: \(allowed.joined(separator: ", "))")
        }
        return object
    }

    /// A string member; nil when absent or null.
    mutating func string(_ value: JSONValue?, at pointer: @autoclosure () -> String) -> String? {
        guard let value, !value.isNull else { return nil }
        guard let text = value.stringValue else { return mismatch(value, "a string", pointer()) }
        return text
    }

    /// An array item that must be a string (null is an error here, not "absent").
    mutating func item(_ value: JSONValue, at pointer: @autoclosure () -> String) -> String? {
        guard let text = value.stringValue else { return mismatch(value, "a string", pointer()) }
        return text
    }

    /// A boolean member; nil when absent or null.
    mutating func bool(_ value: JSONValue?, at pointer: @autoclosure () -> String) -> Bool? {
        guard let value, !value.isNull else { return nil }
        guard let flag = value.boolValue else { return mismatch(value, "true or false", pointer()) }
        return flag
    }

    /// A 64-bit integer member; nil when absent or null.
    mutating func int64(_ value: JSONValue?, at pointer: @autoclosure () -> String) -> Int64? {
        guard let value, !value.isNull else { return nil }
        guard let number = value.int64Value else { return mismatch(value, "a 64-bit integer", pointer()) }
        return number
    }

    /// A number member; nil when absent or null.
    mutating func double(_ value: JSONValue?, at pointer: @autoclosure () -> String) -> Double? {
        guard let value, !value.isNull else { return nil }
        guard let number = value.doubleValue else { return mismatch(value, "a number", pointer()) }
        return number
    }

    /// An array member; nil when absent or null.
    mutating func array(_ value: JSONValue?, at pointer: @autoclosure () -> String) -> [JSONValue]? {
        guard let value, !value.isNull else { return nil }
        guard let items = value.arrayValue else { return mismatch(value, "an array", pointer()) }
        return items
    }

    /// A string that must be one of `cases`' raw values.
    mutating func enumeration<E: RawRepresentable & CaseIterable>(
        _ value: JSONValue?, at pointer: @autoclosure () -> String, as type: E.Type
    ) -> E? where E.RawValue == String {
        guard let text = string(value, at: pointer()) else { return nil }
        guard let parsed = E(rawValue: text) else {
            let names = E.allCases.map { $0.rawValue }.joined(separator: ", ")
            fail(pointer(), "\(Self.name(pointer())) must be one of \(names); got '\(text)'")
            return nil
        }
        return parsed
    }

    private mutating func mismatch<T>(_ value: JSONValue, _ expected: String, _ pointer: String) -> T? {
        fail(pointer, "\(Self.name(pointer)) must be \(expected); got \(value.typeName)")
        return nil
    }

    /// A readable name for the member at `pointer`: its last token, or "the body".
    static func name(_ pointer: String) -> String {
        pointer.isEmpty ? "the body" : String(pointer.split(separator: "/").last.map { "'\($0)'" } ?? "the body")
    }

    /// RFC 6901 escaping of one reference token, code point by code point: `~` and `/` followed by a combining
    /// mark are one Character, which a Character-wise replacement passes over (found by `make fuzz`).
    static func escape(_ token: String) -> String {
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return token }
        var escaped = String.UnicodeScalarView()
        for scalar in token.unicodeScalars {
            switch scalar {
            case "~": escaped.append(contentsOf: "~0".unicodeScalars)
            case "/": escaped.append(contentsOf: "~1".unicodeScalars)
            default: escaped.append(scalar)
            }
        }
        return String(escaped)
    }
}
