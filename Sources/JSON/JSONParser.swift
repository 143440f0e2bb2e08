/// A strict RFC 8259 JSON parser working on UTF-8 bytes.
///
/// Accepts exactly one value with optional surrounding whitespace. Rejects trailing data, comments, leading
/// zeros, NaN and Infinity, numbers that overflow `Double`, invalid or lone-surrogate `\u` escapes,
/// unescaped control characters, invalid UTF-8 anywhere (it is reported, never repaired), duplicate object
/// keys and nesting deeper than `maxDepth`. The parser is iterative: no input can overflow the stack.
public enum JSONParser {
    /// Parses one JSON text.
    ///
    /// - Parameters:
    ///   - bytes: the UTF-8 encoded text.
    ///   - maxDepth: the deepest nesting of arrays and objects allowed; `[[1]]` has depth 2. Keep it
    ///     modest: values are released recursively.
    /// - Returns: the value.
    /// - Throws: `JSONSyntaxError` naming the first problem and its byte offset.
    public static func parse(_ bytes: UnsafeRawBufferPointer, maxDepth: Int = 32) throws(JSONSyntaxError)
        -> JSONValue
    {
        var parser = Parser(bytes: bytes, maxDepth: maxDepth)
        return try parser.parseDocument()
    }

    /// Parses one JSON text from any collection of UTF-8 bytes (`[UInt8]`, `ArraySlice<UInt8>`,
    /// `String.UTF8View`, ...). Contiguous collections are parsed in place; others are copied first.
    ///
    /// - Parameters:
    ///   - bytes: the UTF-8 encoded text.
    ///   - maxDepth: the deepest nesting of arrays and objects allowed; `[[1]]` has depth 2.
    /// - Returns: the value.
    /// - Throws: `JSONSyntaxError` naming the first problem and its byte offset.
    public static func parse(_ bytes: some Collection<UInt8>, maxDepth: Int = 32) throws(JSONSyntaxError)
        -> JSONValue
    {
        let result = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONSyntaxError) in try parse(UnsafeRawBufferPointer(buffer), maxDepth: maxDepth) }
        }
        if let result {
            return try result.get()
        }
        return try Array(bytes).withUnsafeBytes { buffer in
            Result { () throws(JSONSyntaxError) in try parse(buffer, maxDepth: maxDepth) }
        }.get()
    }
}

/// The parser's state over one input buffer. Open containers live on explicit stacks, not the call stack.
private struct Parser {
    /// An open array or object. Its elements are `values[valueStart...]`, its keys `keys[keyStart...]`.
    struct Frame {
        let isObject: Bool
        let valueStart: Int
        let keyStart: Int
        /// The keys seen so far, once the object is large enough for hashing to beat a linear scan.
        var seen: Set<String>?
    }

    /// Objects with more members than this track their keys in a set for the duplicate check.
    static let linearKeyLimit = 8

    let bytes: UnsafeRawBufferPointer
    let end: Int
    let maxDepth: Int
    var pos = 0
    var frames: [Frame] = []
    var values: [JSONValue] = []
    var keys: [String] = []
    /// Reused buffer for strings with escapes.
    var scratch: [UInt8] = []

    init(bytes: UnsafeRawBufferPointer, maxDepth: Int) {
        self.bytes = bytes
        self.end = bytes.count
        self.maxDepth = maxDepth
    }

    // MARK: Structure

    mutating func parseDocument() throws(JSONSyntaxError) -> JSONValue {
        skipWhitespace()
        if pos == end {
            throw JSONSyntaxError(offset: pos, reason: "empty body; expected a JSON object")
        }
        var afterComma = false
        while true {
            var value = try parseScalarOrOpen(afterComma: afterComma)
            afterComma = false
            // `nil` means a container was opened: parse its first element.
            while let done = value {
                guard let frame = frames.last else {
                    skipWhitespace()
                    if pos != end {
                        if let hint = try hint() {
                            throw JSONSyntaxError(offset: pos, reason: hint)
                        }
                        throw JSONSyntaxError(offset: pos, reason: "unexpected \(try found()) after the JSON value")
                    }
                    return done
                }
                values.append(done)
                skipWhitespace()
                guard pos < end else { throw endOfInput() }
                let c = bytes[pos]
                if c == UInt8(ascii: ",") {
                    pos += 1
                    skipWhitespace()
                    if frame.isObject {
                        try parseKey(afterComma: true)
                    }
                    afterComma = true
                    value = nil
                } else if c == (frame.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    pos += 1
                    value = closeContainer()
                } else {
                    throw try unexpected(frame.isObject ? "expected ',' or '}'" : "expected ',' or ']'")
                }
            }
        }
    }

    /// Parses a scalar, or opens a container and returns `nil` (or the empty container).
    mutating func parseScalarOrOpen(afterComma: Bool) throws(JSONSyntaxError) -> JSONValue? {
        skipWhitespace()
        guard pos < end else { throw endOfInput() }
        switch bytes[pos] {
        case UInt8(ascii: "{"):
            try checkDepth()
            pos += 1
            skipWhitespace()
            if pos < end && bytes[pos] == UInt8(ascii: "}") {
                pos += 1
                return .object(JSONObject(uniqueMembers: []))
            }
            frames.append(Frame(isObject: true, valueStart: values.count, keyStart: keys.count))
            try parseKey(afterComma: false)
            return nil
        case UInt8(ascii: "["):
            try checkDepth()
            pos += 1
            skipWhitespace()
            if pos < end && bytes[pos] == UInt8(ascii: "]") {
                pos += 1
                return .array([])
            }
            frames.append(Frame(isObject: false, valueStart: values.count, keyStart: keys.count))
            return nil
        case UInt8(ascii: "\""):
            return .string(try parseString())
        case UInt8(ascii: "t"):
            try parseLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try parseLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try parseLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try parseNumber()
        case UInt8(ascii: "]") where afterComma:
            throw JSONSyntaxError(offset: pos, reason: "trailing comma before ']'")
        default:
            throw try unexpected("expected a value")
        }
    }

    func checkDepth() throws(JSONSyntaxError) {
        if frames.count >= maxDepth {
            throw JSONSyntaxError(offset: pos, reason: "nesting deeper than \(maxDepth)")
        }
    }

    /// Parses `"key" :` and checks the key is new in the innermost object.
    mutating func parseKey(afterComma: Bool) throws(JSONSyntaxError) {
        guard pos < end else { throw endOfInput() }
        guard bytes[pos] == UInt8(ascii: "\"") else {
            if afterComma && bytes[pos] == UInt8(ascii: "}") {
                throw JSONSyntaxError(offset: pos, reason: "trailing comma before '}'")
            }
            throw try unexpected("expected '\"' to start a member name")
        }
        let keyOffset = pos
        let key = try parseString()
        let frameIndex = frames.count - 1
        let keyStart = frames[frameIndex].keyStart
        var isDuplicate: Bool
        if frames[frameIndex].seen != nil {
            isDuplicate = !frames[frameIndex].seen!.insert(key).inserted
        } else {
            isDuplicate = false
            for index in keyStart..<keys.count where keys[index] == key {
                isDuplicate = true
                break
            }
            if !isDuplicate && keys.count - keyStart == Self.linearKeyLimit {
                var seen = Set(keys[keyStart...])
                seen.insert(key)
                frames[frameIndex].seen = seen
            }
        }
        if isDuplicate {
            throw JSONSyntaxError(offset: keyOffset, reason: "duplicate key \(Self.quoted(key))")
        }
        keys.append(key)
        skipWhitespace()
        guard pos < end else { throw endOfInput() }
        guard bytes[pos] == UInt8(ascii: ":") else {
            throw try unexpected("expected ':' after a member name")
        }
        pos += 1
    }

    /// Pops the innermost container and returns it as a value.
    mutating func closeContainer() -> JSONValue {
        let frame = frames.removeLast()
        if frame.isObject {
            var members: [(key: String, value: JSONValue)] = []
            members.reserveCapacity(values.count - frame.valueStart)
            for offset in 0..<(values.count - frame.valueStart) {
                members.append((keys[frame.keyStart + offset], values[frame.valueStart + offset]))
            }
            keys.removeSubrange(frame.keyStart...)
            values.removeSubrange(frame.valueStart...)
            return .object(JSONObject(uniqueMembers: members))
        }
        let elements = Array(values[frame.valueStart...])
        values.removeSubrange(frame.valueStart...)
        return .array(elements)
    }

    mutating func skipWhitespace() {
        while pos < end {
            switch bytes[pos] {
            case 0x20, 0x0A, 0x0D, 0x09: pos += 1
            default: return
            }
        }
    }

    mutating func parseLiteral(_ literal: StaticString) throws(JSONSyntaxError) {
        let start = pos
        for index in 0..<literal.utf8CodeUnitCount {
            guard pos < end else { throw endOfInput() }
            guard bytes[pos] == literal.utf8Start[index] else {
                if index == 0 {
                    throw try unexpected("expected a value")
                }
                _ = try found()  // invalid UTF-8 takes precedence
                throw JSONSyntaxError(offset: start, reason: "invalid literal; expected \(literal)")
            }
            pos += 1
        }
    }

    // MARK: Strings

    /// Parses a string starting at the opening quote; leaves `pos` after the closing quote.
    mutating func parseString() throws(JSONSyntaxError) -> String {
        pos += 1
        let start = pos
        while true {
            skipPlainASCII()
            guard pos < end else { throw endOfInput() }
            let c = bytes[pos]
            if c == UInt8(ascii: "\"") {
                let string = makeString(start..<pos)
                pos += 1
                return string
            } else if c == UInt8(ascii: "\\") {
                return try parseEscapedString(from: start)
            } else if c < 0x20 {
                throw controlCharacter(c)
            } else {
                pos += try validateUTF8(at: pos)
            }
        }
    }

    /// The slow path: the string has escapes, so it is decoded into `scratch`.
    mutating func parseEscapedString(from start: Int) throws(JSONSyntaxError) -> String {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<pos]))
        while true {
            let runStart = pos
            skipPlainASCII()
            guard pos < end else { throw endOfInput() }
            if runStart < pos {
                scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[runStart..<pos]))
            }
            let c = bytes[pos]
            if c == UInt8(ascii: "\"") {
                pos += 1
                return String(decoding: scratch, as: UTF8.self)
            } else if c == UInt8(ascii: "\\") {
                try parseEscape()
            } else if c < 0x20 {
                throw controlCharacter(c)
            } else {
                let length = try validateUTF8(at: pos)
                scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[pos..<pos + length]))
                pos += length
            }
        }
    }

    /// Decodes the escape at `pos` into `scratch`.
    mutating func parseEscape() throws(JSONSyntaxError) {
        let escapeStart = pos
        pos += 1
        guard pos < end else { throw endOfInput() }
        let c = bytes[pos]
        pos += 1
        switch c {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(c)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if 0xDC00...0xDFFF ~= scalar {
                throw loneSurrogate(scalar, at: escapeStart)
            }
            if 0xD800...0xDBFF ~= scalar {
                guard end - pos >= 2, bytes[pos] == UInt8(ascii: "\\"), bytes[pos + 1] == UInt8(ascii: "u") else {
                    throw loneSurrogate(scalar, at: escapeStart)
                }
                pos += 2
                let low = try parseHex4()
                guard 0xDC00...0xDFFF ~= low else {
                    throw loneSurrogate(scalar, at: escapeStart)
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            appendUTF8(scalar)
        default:
            pos = escapeStart + 1
            throw try unexpected("invalid escape; expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u")
        }
    }

    mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard pos < end else { throw endOfInput() }
            let c = bytes[pos]
            let digit: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = c - UInt8(ascii: "A") + 10
            default: throw try unexpected("expected a hex digit in \\u escape")
            }
            value = value << 4 | UInt32(digit)
            pos += 1
        }
        return value
    }

    mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case ..<0x80:
            scratch.append(UInt8(scalar))
        case ..<0x800:
            scratch.append(UInt8(0xC0 | scalar >> 6))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        case ..<0x10000:
            scratch.append(UInt8(0xE0 | scalar >> 12))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | scalar >> 18))
            scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// Advances `pos` over printable ASCII other than `"` and `\`, eight bytes at a time where possible.
    mutating func skipPlainASCII() {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        while end - pos >= 8 {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: pos, as: UInt64.self))
            // High bit set in a byte lane when that byte is < 0x20, == '"', == '\\' or >= 0x80 (the usual
            // "has zero byte" trick; borrows can only flag lanes above a real hit, which is harmless).
            let control = (word &- ones &* 0x20) & ~word
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            let special = control | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | word
            if special & highBits != 0 {
                break
            }
            pos += 8
        }
        while pos < end {
            let c = bytes[pos]
            if c < 0x20 || c >= 0x80 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") {
                return
            }
            pos += 1
        }
    }

    /// A string from bytes already validated as UTF-8.
    func makeString(_ range: Range<Int>) -> String {
        let source = UnsafeRawBufferPointer(rebasing: bytes[range])
        return String(unsafeUninitializedCapacity: range.count) { buffer in
            UnsafeMutableRawBufferPointer(buffer).copyMemory(from: source)
            return range.count
        }
    }

    /// The length of the valid UTF-8 sequence at `offset`, which holds a byte >= 0x80.
    func validateUTF8(at offset: Int) throws(JSONSyntaxError) -> Int {
        guard let (_, length) = decodeUTF8(at: offset) else {
            throw JSONSyntaxError(offset: offset, reason: "invalid UTF-8")
        }
        return length
    }

    /// Decodes the multi-byte UTF-8 sequence at `offset` strictly (Unicode table 3-7: no overlong forms,
    /// no surrogates, nothing above U+10FFFF, no truncation), or returns `nil`.
    func decodeUTF8(at offset: Int) -> (scalar: UInt32, length: Int)? {
        let lead = bytes[offset]
        let length: Int
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; upper = 0x9F
        case 0xF0: length = 4; lower = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; upper = 0x8F
        default: return nil
        }
        guard end - offset >= length else { return nil }
        var scalar = UInt32(lead) & (0x7F >> UInt32(length))
        for index in 1..<length {
            let byte = bytes[offset + index]
            guard byte >= (index == 1 ? lower : 0x80), byte <= (index == 1 ? upper : 0xBF) else { return nil }
            scalar = scalar << 6 | UInt32(byte & 0x3F)
        }
        return (scalar, length)
    }

    // MARK: Numbers

    mutating func parseNumber() throws(JSONSyntaxError) -> JSONValue {
        let start = pos
        let negative = bytes[pos] == UInt8(ascii: "-")
        if negative {
            pos += 1
        }
        guard pos < end else { throw endOfInput() }
        let digitsStart = pos
        if bytes[pos] == UInt8(ascii: "0") {
            pos += 1
            if pos < end && isDigit(bytes[pos]) {
                throw JSONSyntaxError(offset: start, reason: "leading zeros are not allowed in numbers")
            }
        } else if isDigit(bytes[pos]) {
            skipDigits()
        } else {
            throw try unexpected("expected a digit after '-'")
        }
        let digitsEnd = pos
        var isInteger = true
        if pos < end && bytes[pos] == UInt8(ascii: ".") {
            pos += 1
            try requireDigits("expected a digit after the decimal point")
            isInteger = false
        }
        if pos < end && (bytes[pos] | 0x20) == UInt8(ascii: "e") {
            pos += 1
            if pos < end && (bytes[pos] == UInt8(ascii: "+") || bytes[pos] == UInt8(ascii: "-")) {
                pos += 1
            }
            try requireDigits("expected a digit in the exponent")
            isInteger = false
        }
        if isInteger, let value = integer(digitsStart..<digitsEnd, negative: negative) {
            return .integer(value)
        }
        let text = makeString(start..<pos)
        guard let value = Double(text), value.isFinite else {
            throw JSONSyntaxError(offset: start, reason: "number \(text.prefix(40)) is out of range")
        }
        return .number(value)
    }

    /// The decimal digits in `range` as an `Int64`, or `nil` if out of range.
    func integer(_ range: Range<Int>, negative: Bool) -> Int64? {
        guard range.count <= 19 else { return nil }
        // Accumulate negatively: Int64.min has no positive counterpart.
        var value: Int64 = 0
        for offset in range {
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = shifted.subtractingReportingOverflow(Int64(bytes[offset] - UInt8(ascii: "0")))
            if overflow1 || overflow2 {
                return nil
            }
            value = next
        }
        if negative {
            return value
        }
        return value == .min ? nil : -value
    }

    func isDigit(_ c: UInt8) -> Bool {
        c &- UInt8(ascii: "0") < 10
    }

    mutating func skipDigits() {
        while pos < end && isDigit(bytes[pos]) {
            pos += 1
        }
    }

    mutating func requireDigits(_ expectation: String) throws(JSONSyntaxError) {
        guard pos < end else { throw endOfInput() }
        guard isDigit(bytes[pos]) else { throw try unexpected(expectation) }
        skipDigits()
    }

    // MARK: Errors

    func endOfInput() -> JSONSyntaxError {
        JSONSyntaxError(offset: end, reason: "unexpected end of input")
    }

    func controlCharacter(_ c: UInt8) -> JSONSyntaxError {
        JSONSyntaxError(offset: pos, reason: "unescaped control character \(Self.codePoint(UInt32(c))) in string")
    }

    func loneSurrogate(_ unit: UInt32, at offset: Int) -> JSONSyntaxError {
        let hex = String(unit, radix: 16, uppercase: true)
        return JSONSyntaxError(offset: offset, reason: "lone surrogate \\u\(hex) in string")
    }

    /// An error for the unexpected byte at `pos`, such as "expected ':' after a member name but found '='".
    /// Throws the UTF-8 error instead if the byte starts invalid UTF-8.
    func unexpected(_ expectation: String) throws(JSONSyntaxError) -> JSONSyntaxError {
        if let hint = try hint() {
            return JSONSyntaxError(offset: pos, reason: hint)
        }
        return JSONSyntaxError(offset: pos, reason: "\(expectation) but found \(try found())")
    }

    /// A specific reason for common mistakes at `pos` (comments, a byte order mark), if any.
    func hint() throws(JSONSyntaxError) -> String? {
        if bytes[pos] == UInt8(ascii: "/") && pos + 1 < end
            && (bytes[pos + 1] == UInt8(ascii: "/") || bytes[pos + 1] == UInt8(ascii: "*"))
        {
            return "comments are not allowed"
        }
        if pos == 0, try found() == "U+FEFF" {
            return "byte order mark at start of input"
        }
        return nil
    }

    /// The byte or character at `pos` for a message: `'x'` or `U+000A`.
    func found() throws(JSONSyntaxError) -> String {
        let c = bytes[pos]
        switch c {
        case 0x21...0x7E:
            return "'\(Character(Unicode.Scalar(c)))'"
        case 0x80...:
            guard let (scalar, _) = decodeUTF8(at: pos) else {
                throw JSONSyntaxError(offset: pos, reason: "invalid UTF-8")
            }
            return Self.codePoint(scalar)
        default:
            return Self.codePoint(UInt32(c))
        }
    }

    /// `U+000A` style.
    static func codePoint(_ scalar: UInt32) -> String {
        let hex = String(scalar, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// The key as a JSON string literal, shortened if long.
    static func quoted(_ key: String) -> String {
        var writer = JSONWriter(capacity: 80)
        writer.write(key.count > 64 ? String(key.prefix(64)) + "…" : key)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
