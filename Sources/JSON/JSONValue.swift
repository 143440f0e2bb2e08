/// A parsed JSON value.
///
/// Numbers keep their integer precision: a literal without fraction or exponent that fits `Int64` is
/// `.integer`; every other number is `.number`. `JSONParser` never produces non-finite numbers.
///
/// Equality is structural and strict: `.integer(1)` and `.number(1.0)` differ, and objects compare their
/// members in order (see `JSONObject`).
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The JSON type name for error messages: "null", "boolean", "integer", "number", "string", "array"
    /// or "object".
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .integer: "integer"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// `true` for `.null`.
    public var isNull: Bool {
        if case .null = self { true } else { false }
    }

    /// The string, if this is `.string`.
    public var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// The Boolean, if this is `.bool`.
    public var boolValue: Bool? {
        if case .bool(let value) = self { value } else { nil }
    }

    /// The integer, if this is `.integer`, or a `.number` with an integral value below 2^63 in magnitude
    /// (`2.0` gives 2; `2.5` and `1e19` give `nil`). -2^63 itself is refused as a `.number`: integer
    /// literals beyond `Int64` round to it as a `Double` (`-9223372036854775809`), and `Int64.min`
    /// written as an integer is an `.integer`.
    public var int64Value: Int64? {
        switch self {
        case .integer(let value): value
        case .number(let value): value.magnitude < 0x1p63 ? Int64(exactly: value) : nil
        default: nil
        }
    }

    /// The number as a `Double`, if this is `.number` or `.integer` (large integers round to the nearest
    /// `Double`).
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .number(let value): value
        default: nil
        }
    }

    /// The elements, if this is `.array`.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { value } else { nil }
    }

    /// The object, if this is `.object`.
    public var objectValue: JSONObject? {
        if case .object(let value) = self { value } else { nil }
    }
}
