/// Writes compact JSON as UTF-8 into a byte array, either whole `JSONValue`s or streamed piece by piece.
///
/// Commas are inserted automatically:
///
/// ```swift
/// var writer = JSONWriter()
/// writer.beginObject()
/// writer.key("id")
/// writer.write("q3l8")
/// writer.key("tags")
/// writer.beginArray()
/// writer.write(1)
/// writer.write(2)
/// writer.endArray()
/// writer.endObject()
/// // writer.bytes holds {"id":"q3l8","tags":[1,2]}
/// ```
///
/// The caller keeps the structure valid (a `key(_:)` before each object member, balanced begin and end).
public struct JSONWriter: Sendable {
    /// The UTF-8 output so far.
    public private(set) var bytes: [UInt8]
    /// Whether the next value or key needs a comma before it.
    private var needsComma = false

    /// Creates an empty writer.
    ///
    /// The default capacity keeps the buffer (with the array's 32-byte header) within glibc's per-thread cache,
    /// which serves allocations up to 1,032 bytes: at 1,024 every response body took malloc's slow path
    /// (`_int_malloc`, often `malloc_consolidate`), ~1% of a `GET`. Larger bodies grow as arrays do.
    ///
    /// - Parameters:
    ///   - capacity: bytes to reserve up front.
    public init(capacity: Int = 960) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    // MARK: Structure

    /// Starts an object; follow with `key(_:)` and a value per member, then `endObject()`.
    public mutating func beginObject() {
        startValue()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    /// Writes an object member's name and the colon; the member's value comes next.
    ///
    /// - Parameters:
    ///   - name: the member name, escaped as needed.
    public mutating func key(_ name: String) {
        startValue()
        appendString(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes an object member's name fixed at compile time, and the colon: one copy, no escaping scan.
    ///
    /// For the hot writers (an alert has ~30 member names; a list page 50 alerts). The name must need no escaping:
    /// printable ASCII without `"` or `\`, as every member name of the contract is.
    ///
    /// - Parameters:
    ///   - name: the member name.
    public mutating func member(_ name: StaticString) {
        assert(name.withUTF8Buffer { $0.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C } },
               "member(_:) takes names that need no escaping")
        startValue()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Ends the innermost object.
    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Starts an array; follow with its elements, then `endArray()`.
    public mutating func beginArray() {
        startValue()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    /// Ends the innermost array.
    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    // MARK: Scalars

    /// Writes `null`.
    public mutating func writeNull() {
        startValue()
        bytes.append(contentsOf: "null".utf8)
        needsComma = true
    }

    /// Writes `true` or `false`.
    public mutating func write(_ value: Bool) {
        startValue()
        bytes.append(contentsOf: value ? "true".utf8 : "false".utf8)
        needsComma = true
    }

    /// Writes an integer.
    public mutating func write(_ value: Int) {
        write(Int64(value))
    }

    /// Writes an integer.
    public mutating func write(_ value: Int64) {
        startValue()
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
        }
        var magnitude = value.magnitude
        var digitCount = 1
        var rest = magnitude
        while rest >= 10 {
            rest /= 10
            digitCount += 1
        }
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: digitCount))
        var index = bytes.count
        repeat {
            index -= 1
            bytes[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
        } while magnitude != 0
        needsComma = true
    }

    /// Writes a number in Swift's shortest round-tripping form (`1.0`, `0.1`, `1e+20`); NaN and infinities,
    /// which JSON cannot express, are written as `null`.
    public mutating func write(_ value: Double) {
        guard value.isFinite else {
            writeNull()
            return
        }
        startValue()
        bytes.append(contentsOf: value.description.utf8)
        needsComma = true
    }

    /// Writes a string: `"` and `\` escaped, control characters as `\n`-style or `\u001f`-style escapes,
    /// everything else (including non-ASCII) as raw UTF-8.
    public mutating func write(_ value: String) {
        startValue()
        appendString(value)
        needsComma = true
    }

    // MARK: Values

    /// Writes a whole value, objects with their members in order.
    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null:
            writeNull()
        case .bool(let bool):
            write(bool)
        case .integer(let integer):
            write(integer)
        case .number(let number):
            write(number)
        case .string(let string):
            write(string)
        case .array(let elements):
            beginArray()
            for element in elements {
                write(element)
            }
            endArray()
        case .object(let object):
            beginObject()
            for member in object.members {
                key(member.key)
                write(member.value)
            }
            endObject()
        }
    }

    /// Encodes `value` as compact JSON.
    ///
    /// - Parameters:
    ///   - value: the value to encode.
    /// - Returns: the UTF-8 bytes.
    public static func encode(_ value: JSONValue) -> [UInt8] {
        var writer = JSONWriter()
        writer.write(value)
        return writer.bytes
    }

    // MARK: Internals

    private mutating func startValue() {
        if needsComma {
            bytes.append(UInt8(ascii: ","))
        }
    }

    private mutating func appendString(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { appendEscaped($0) }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends `source`, escaping what JSON requires; unescaped runs are copied in bulk.
    private mutating func appendEscaped(_ source: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        for index in source.indices {
            let c = source[index]
            guard c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") else {
                continue
            }
            if runStart < index {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: source[runStart..<index]))
            }
            runStart = index + 1
            bytes.append(UInt8(ascii: "\\"))
            switch c {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(c)
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            default:
                // c < 0x20: "u00" then two lowercase hex digits, the first 0 or 1.
                let low = c & 0x0F
                bytes.append(contentsOf: "u00".utf8)
                bytes.append(UInt8(ascii: "0") + (c >> 4))
                bytes.append(low < 10 ? UInt8(ascii: "0") + low : UInt8(ascii: "a") + low - 10)
            }
        }
        if runStart < source.count {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: source[runStart...]))
        }
    }
}
