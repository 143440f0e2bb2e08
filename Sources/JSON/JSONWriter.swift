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
///
/// `@unchecked Sendable`: its storage is a class, written only through the writer that holds the one reference to it
/// (`isKnownUniquelyReferenced`, else the writer copies it first); a storage reachable from two writers, on two
/// threads or not, is only read.
public struct JSONWriter: @unchecked Sendable {
    /// The UTF-8 output so far (a copy).
    public var bytes: [UInt8] {
        Array(UnsafeBufferPointer(start: storage.start, count: count))
    }

    /// Bytes written so far.
    public private(set) var count = 0

    /// Calls `body` with the output so far, without copying it.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withExtendedLifetime(storage) {
            try body(UnsafeRawBufferPointer(start: storage.start, count: count))
        }
    }

    /// The output: one allocation, written in place. An `Array` paid a uniqueness and a capacity check for every
    /// byte appended; this pays one a piece (a member name, a string, a number), which took a third of the
    /// instructions of writing an alert (callgrind, issue 28). Copy on write: a writer copies it before writing
    /// when another writer holds it too.
    private var storage: Storage
    /// Bytes `storage` holds. Kept here with `count`, not in the class: a class's stored properties pay
    /// exclusivity checks at run time (`swift_beginAccess`), a struct's do not.
    private var capacity: Int
    /// Whether the next value or key needs a comma before it.
    private var needsComma = false

    /// Creates an empty writer.
    ///
    /// The default capacity keeps the buffer (with its 32-byte header) within glibc's per-thread cache,
    /// which serves allocations up to 1,032 bytes: at 1,024 every response body took malloc's slow path
    /// (`_int_malloc`, often `malloc_consolidate`), ~1% of a `GET`. Larger bodies grow by doubling.
    ///
    /// - Parameters:
    ///   - capacity: bytes to reserve up front.
    public init(capacity: Int = 960) {
        storage = Storage.make(capacity: max(capacity, 16))
        self.capacity = storage.capacity
    }

    /// The bytes of a writer (the header is unused).
    private final class Storage: ManagedBuffer<Void, UInt8> {
        static func make(capacity: Int) -> Storage {
            // ManagedBuffer.create returns the class it is called on, a Storage.
            unsafeDowncast(Storage.create(minimumCapacity: capacity) { _ in () }, to: Storage.self)
        }

        var start: UnsafeMutablePointer<UInt8> {
            withUnsafeMutablePointerToElements { $0 }
        }
    }

    /// Where the next `count` bytes go, with room made for them; `commit(_:)` then counts what was written.
    @inline(__always)
    private mutating func space(_ extra: Int) -> UnsafeMutablePointer<UInt8> {
        let needed = count + extra
        if needed > capacity || !isKnownUniquelyReferenced(&storage) {
            let copy = Storage.make(capacity: max(needed, capacity * 2))
            copy.start.update(from: storage.start, count: count)
            storage = copy
            capacity = copy.capacity
        }
        return storage.start + count
    }

    @inline(__always)
    private mutating func commit(_ written: Int) {
        count += written
    }

    @inline(__always)
    private mutating func append(_ byte: UInt8) {
        space(1).pointee = byte
        commit(1)
    }

    @inline(__always)
    private mutating func append(_ source: UnsafeBufferPointer<UInt8>) {
        guard let base = source.baseAddress, !source.isEmpty else { return }
        space(source.count).update(from: base, count: source.count)
        commit(source.count)
    }

    // MARK: Structure

    /// Starts an object; follow with `key(_:)` and a value per member, then `endObject()`.
    public mutating func beginObject() {
        startValue()
        append(UInt8(ascii: "{"))
        needsComma = false
    }

    /// Writes an object member's name and the colon; the member's value comes next.
    ///
    /// - Parameters:
    ///   - name: the member name, escaped as needed.
    public mutating func key(_ name: String) {
        startValue()
        appendString(name)
        append(UInt8(ascii: ":"))
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
        name.withUTF8Buffer { name in
            // One check for room: the comma, the quotes, the name and the colon.
            let comma = needsComma ? 1 : 0
            let count = comma + name.count + 3
            let out = space(count)
            out[0] = UInt8(ascii: ",")
            out[comma] = UInt8(ascii: "\"")
            if let base = name.baseAddress { (out + comma + 1).update(from: base, count: name.count) }
            out[comma + 1 + name.count] = UInt8(ascii: "\"")
            out[comma + 2 + name.count] = UInt8(ascii: ":")
            commit(count)
        }
        needsComma = false
    }

    /// Starts a member whose name comes from data (a map's key): escaped as a string is.
    ///
    /// - Parameters:
    ///   - name: the member name.
    public mutating func member(named name: String) {
        write(name)
        space(1)[0] = UInt8(ascii: ":")
        commit(1)
        needsComma = false
    }

    /// Ends the innermost object.
    public mutating func endObject() {
        append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Starts an array; follow with its elements, then `endArray()`.
    public mutating func beginArray() {
        startValue()
        append(UInt8(ascii: "["))
        needsComma = false
    }

    /// Ends the innermost array.
    public mutating func endArray() {
        append(UInt8(ascii: "]"))
        needsComma = true
    }

    // MARK: Scalars

    /// Writes `null`.
    public mutating func writeNull() {
        startValue()
        appendLiteral("null")
        needsComma = true
    }

    /// Writes `true` or `false`.
    public mutating func write(_ value: Bool) {
        startValue()
        appendLiteral(value ? "true" : "false")
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
            append(UInt8(ascii: "-"))
        }
        var magnitude = value.magnitude
        var digitCount = 1
        var rest = magnitude
        while rest >= 10 {
            rest /= 10
            digitCount += 1
        }
        let out = space(digitCount)
        var index = digitCount
        repeat {
            index -= 1
            out[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
        } while magnitude != 0
        commit(digitCount)
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
        var text = value.description
        text.withUTF8 { append($0) }
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
            append(UInt8(ascii: ","))
        }
    }

    private mutating func appendLiteral(_ text: StaticString) {
        text.withUTF8Buffer { append($0) }
    }

    private mutating func appendString(_ value: String) {
        var value = value
        value.withUTF8 { source in
            // Most strings need no escape: then the quotes and the bytes take one check for room.
            if let base = source.baseAddress, !source.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
                let out = space(source.count + 2)
                out[0] = UInt8(ascii: "\"")
                (out + 1).update(from: base, count: source.count)
                out[source.count + 1] = UInt8(ascii: "\"")
                commit(source.count + 2)
            } else {
                append(UInt8(ascii: "\""))
                appendEscaped(source)
                append(UInt8(ascii: "\""))
            }
        }
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
                append(UnsafeBufferPointer(rebasing: source[runStart..<index]))
            }
            runStart = index + 1
            append(UInt8(ascii: "\\"))
            switch c {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): append(c)
            case 0x08: append(UInt8(ascii: "b"))
            case 0x0C: append(UInt8(ascii: "f"))
            case 0x0A: append(UInt8(ascii: "n"))
            case 0x0D: append(UInt8(ascii: "r"))
            case 0x09: append(UInt8(ascii: "t"))
            default:
                // c < 0x20: "u00" then two lowercase hex digits, the first 0 or 1.
                let low = c & 0x0F
                appendLiteral("u00")
                append(UInt8(ascii: "0") + (c >> 4))
                append(low < 10 ? UInt8(ascii: "0") + low : UInt8(ascii: "a") + low - 10)
            }
        }
        if runStart < source.count {
            append(UnsafeBufferPointer(rebasing: source[runStart...]))
        }
    }
}
