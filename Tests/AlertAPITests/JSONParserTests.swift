import Testing

@testable import AlertAPI
import JSON

/// Parses `text` as UTF-8.
private func parse(_ text: String, maxDepth: Int = 32) throws(JSONSyntaxError) -> JSONValue {
    try JSONParser.parse(Array(text.utf8), maxDepth: maxDepth)
}

/// The error `bytes` fail with, or `nil` if they parse.
private func failure(_ bytes: [UInt8], maxDepth: Int = 32) -> JSONSyntaxError? {
    do {
        _ = try JSONParser.parse(bytes, maxDepth: maxDepth)
        return nil
    } catch {
        return error
    }
}

private func failure(_ text: String, maxDepth: Int = 32) -> JSONSyntaxError? {
    failure(Array(text.utf8), maxDepth: maxDepth)
}

@Suite("JSONParser: valid input")
struct JSONParserValidTests {
    @Test(arguments: [
        ("null", JSONValue.null),
        ("true", .bool(true)),
        ("false", .bool(false)),
        ("0", .integer(0)),
        ("-0", .integer(0)),
        ("42", .integer(42)),
        ("-42", .integer(-42)),
        ("1.5", .number(1.5)),
        ("-0.25", .number(-0.25)),
        ("1.0", .number(1.0)),
        ("1e3", .number(1000)),
        ("1E+3", .number(1000)),
        ("25e-1", .number(2.5)),
        ("0.1", .number(0.1)),
        ("1e-400", .number(0)),
        ("\"\"", .string("")),
        ("\"abc\"", .string("abc")),
        (" \t\r\n[ 1 , 2 ]\n ", .array([.integer(1), .integer(2)])),
        ("[]", .array([])),
        ("{}", .object([:])),
        ("[[],{}]", .array([.array([]), .object([:])])),
        ("{\"a\":[1,{\"b\":null}]}", .object(["a": .array([.integer(1), .object(["b": .null])])])),
    ])
    func parsesValue(text: String, expected: JSONValue) throws {
        #expect(try parse(text) == expected)
    }

    @Test(arguments: [
        ("9223372036854775807", JSONValue.integer(.max)),
        ("-9223372036854775808", .integer(.min)),
        ("9223372036854775808", .number(9_223_372_036_854_775_808.0)),
        ("-9223372036854775809", .number(-9_223_372_036_854_775_809.0)),
        ("18446744073709551616", .number(18_446_744_073_709_551_616.0)),
        ("123456789012345678901234567890", .number(1.2345678901234568e29)),
        ("10000000000000000000", .number(1e19)),
        ("1e2", .number(100)),
    ])
    func integerRange(text: String, expected: JSONValue) throws {
        #expect(try parse(text) == expected)
    }

    @Test(arguments: [
        (#""\"\\\/\b\f\n\r\t""#, "\"\\/\u{8}\u{C}\n\r\t"),
        (#""\u0041\u00e9\u20AC""#, "Aé€"),
        (#""\u0000""#, "\u{0}"),
        (#""\uD83D\uDE00""#, "😀"),
        (#""\ud83d\ude00x""#, "😀x"),
        (#""\uDBFF\uDFFF""#, "\u{10FFFF}"),
        (#""é€😀""#, "é€😀"),
        (#""a\nbé\u00e9c""#, "a\nbééc"),
        ("\"\u{7F}\"", "\u{7F}"),
        (#""\uFEFF""#, "\u{FEFF}"),
    ])
    func strings(text: String, expected: String) throws {
        #expect(try parse(text) == .string(expected))
    }

    /// Special bytes at every position relative to the eight-byte scan.
    @Test(arguments: 0..<20)
    func specialCharacterPositions(position: Int) throws {
        let prefix = String(repeating: "a", count: position)
        let suffix = String(repeating: "b", count: 19 - position)
        #expect(try parse("\"\(prefix)\\n\(suffix)\"") == .string(prefix + "\n" + suffix))
        #expect(try parse("\"\(prefix)é\(suffix)\"") == .string(prefix + "é" + suffix))
        #expect(try parse("\"\(prefix)\"") == .string(prefix))
        #expect(failure("\"\(prefix)\u{1}\(suffix)\"")?.offset == position + 1)
        #expect(failure([0x22] + Array(prefix.utf8) + [0xFF] + Array(suffix.utf8) + [0x22])?.offset == position + 1)
    }

    @Test func objectKeepsOrder() throws {
        let value = try parse(#"{"z":1,"a":2,"m":{"y":true,"b":false}}"#)
        let object = try #require(value.objectValue)
        #expect(object.keys == ["z", "a", "m"])
        #expect(object["a"] == .integer(2))
        #expect(object["missing"] == nil)
        #expect(object["m"]?.objectValue?.keys == ["y", "b"])
        #expect(object.count == 3)
        #expect(value != .object(["a": .integer(2), "z": .integer(1), "m": object["m"]!]))
    }

    @Test func largeObjectWithUniqueKeys() throws {
        let members = (0..<1000).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        let object = try #require(try parse("{\(members)}").objectValue)
        #expect(object.count == 1000)
        #expect(object["k999"] == .integer(999))
    }

    @Test func exactlyMaxDepth() throws {
        let text = String(repeating: "[", count: 32) + "1" + String(repeating: "]", count: 32)
        _ = try parse(text)
        let objects = String(repeating: "{\"a\":", count: 32) + "1" + String(repeating: "}", count: 32)
        _ = try parse(objects)
    }

    @Test func deepNestingWithRaisedLimit() throws {
        let depth = 5000
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        var value = try parse(text, maxDepth: depth)
        var levels = 0
        while case .array(let elements) = value, let first = elements.first {
            value = first
            levels += 1
        }
        #expect(levels == depth - 1)
    }

    @Test func inputKinds() throws {
        let text = #"{"a":[1,2.5,"x"]}"#
        let expected = try parse(text)
        #expect(try JSONParser.parse(text.utf8) == expected)
        #expect(try JSONParser.parse(Array(("  " + text).utf8).dropFirst(2)) == expected)
        #expect(try JSONParser.parse(text.utf8.lazy.map { $0 }) == expected)
        let bytes = Array(text.utf8)
        let fromBuffer = try bytes.withUnsafeBytes { buffer throws(JSONSyntaxError) in
            try JSONParser.parse(buffer)
        }
        #expect(fromBuffer == expected)
    }

    @Test func accessors() throws {
        let value = try parse(#"{"s":"x","i":7,"f":2.0,"g":2.5,"b":true,"a":[],"n":null,"big":1e19}"#)
        let object = try #require(value.objectValue)
        #expect(object["s"]?.stringValue == "x")
        #expect(object["i"]?.int64Value == 7)
        #expect(object["f"]?.int64Value == 2)
        #expect(object["g"]?.int64Value == nil)
        #expect(object["big"]?.int64Value == nil)
        #expect(object["g"]?.doubleValue == 2.5)
        #expect(object["i"]?.doubleValue == 7)
        #expect(object["b"]?.boolValue == true)
        #expect(object["a"]?.arrayValue == [])
        #expect(object["n"]?.isNull == true)
        #expect(object["s"]?.int64Value == nil)
        #expect(object["i"]?.stringValue == nil)
        // An integer literal just beyond Int64 rounds to -2^63 as a Double; it must not become Int64.min.
        #expect(JSONValue.number(-9_223_372_036_854_775_808.0).int64Value == nil)
        #expect(try parse("-9223372036854775809").int64Value == nil)
        #expect(try parse("-9223372036854775808").int64Value == .min)
        #expect(JSONValue.number(9_223_372_036_854_775_808.0).int64Value == nil)
        #expect(JSONValue.number(.nan).int64Value == nil)
    }

    @Test(arguments: [
        (JSONValue.null, "null"), (.bool(true), "boolean"), (.integer(1), "integer"), (.number(1), "number"),
        (.string(""), "string"), (.array([]), "array"), (.object([:]), "object"),
    ])
    func typeNames(value: JSONValue, name: String) {
        #expect(value.typeName == name)
    }

    @Test func objectInitializerKeepsFirstPositionLastValue() {
        let object = JSONObject([("a", .integer(1)), ("b", .integer(2)), ("a", .integer(3))])
        #expect(object.keys == ["a", "b"])
        #expect(object["a"] == .integer(3))
    }
}

@Suite("JSONParser: syntax errors")
struct JSONParserErrorTests {
    @Test(arguments: [
        ("", 0, "empty body; expected a JSON object"),
        (" \n\t ", 4, "empty body; expected a JSON object"),
        ("[1,2", 4, "unexpected end of input"),
        ("{\"a\":", 5, "unexpected end of input"),
        ("{\"a\"", 4, "unexpected end of input"),
        ("\"abc", 4, "unexpected end of input"),
        ("\"ab\\", 4, "unexpected end of input"),
        ("\"\\u12", 5, "unexpected end of input"),
        ("-", 1, "unexpected end of input"),
        ("tru", 3, "unexpected end of input"),
        ("trux", 0, "invalid literal; expected true"),
        ("nul1", 0, "invalid literal; expected null"),
        ("[1]x", 3, "unexpected 'x' after the JSON value"),
        ("[1] [2]", 4, "unexpected '[' after the JSON value"),
        ("1 2", 2, "unexpected '2' after the JSON value"),
        ("{} \u{0}", 3, "unexpected U+0000 after the JSON value"),
        ("01", 0, "leading zeros are not allowed in numbers"),
        ("-012", 0, "leading zeros are not allowed in numbers"),
        ("[00]", 1, "leading zeros are not allowed in numbers"),
        ("1.", 2, "unexpected end of input"),
        ("1.e3", 2, "expected a digit after the decimal point but found 'e'"),
        ("1e", 2, "unexpected end of input"),
        ("1e+", 3, "unexpected end of input"),
        ("1ex", 2, "expected a digit in the exponent but found 'x'"),
        (".5", 0, "expected a value but found '.'"),
        ("+1", 0, "expected a value but found '+'"),
        ("NaN", 0, "expected a value but found 'N'"),
        ("Infinity", 0, "expected a value but found 'I'"),
        ("-Infinity", 1, "expected a digit after '-' but found 'I'"),
        ("[-]", 2, "expected a digit after '-' but found ']'"),
        ("1e400", 0, "number 1e400 is out of range"),
        ("-1e400", 0, "number -1e400 is out of range"),
        ("[1,]", 3, "trailing comma before ']'"),
        ("[1,,2]", 3, "expected a value but found ','"),
        ("[,1]", 1, "expected a value but found ','"),
        ("{\"a\":1,}", 7, "trailing comma before '}'"),
        ("{,}", 1, "expected '\"' to start a member name but found ','"),
        ("{'a':1}", 1, "expected '\"' to start a member name but found '''"),
        ("{a:1}", 1, "expected '\"' to start a member name but found 'a'"),
        ("{1:2}", 1, "expected '\"' to start a member name but found '1'"),
        ("{\"a\" 1}", 5, "expected ':' after a member name but found '1'"),
        ("{\"a\"=1}", 4, "expected ':' after a member name but found '='"),
        ("[1 2]", 3, "expected ',' or ']' but found '2'"),
        ("{\"a\":1 \"b\":2}", 7, "expected ',' or '}' but found '\"'"),
        ("[1}", 2, "expected ',' or ']' but found '}'"),
        ("{\"a\":1]", 6, "expected ',' or '}' but found ']'"),
        ("// note\n1", 0, "comments are not allowed"),
        ("/* note */ 1", 0, "comments are not allowed"),
        ("[1 /* note */]", 3, "comments are not allowed"),
        ("1 // note", 2, "comments are not allowed"),
        ("/", 0, "expected a value but found '/'"),
        ("\u{FEFF}{}", 0, "byte order mark at start of input"),
        ("é", 0, "expected a value but found U+00E9"),
        ("[1,\u{1F600}]", 3, "expected a value but found U+1F600"),
        ("\"a\nb\"", 2, "unescaped control character U+000A in string"),
        ("\"a\tb\"", 2, "unescaped control character U+0009 in string"),
        ("\"\u{0}\"", 1, "unescaped control character U+0000 in string"),
        ("\"\u{1F}\"", 1, "unescaped control character U+001F in string"),
        ("\"x\\u00e9\u{1}\"", 8, "unescaped control character U+0001 in string"),
        ("\"\\x\"", 2, "invalid escape; expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u but found 'x'"),
        ("\"\\'\"", 2, "invalid escape; expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u but found '''"),
        ("\"\\u12G4\"", 5, "expected a hex digit in \\u escape but found 'G'"),
        ("\"\\uD800\"", 1, "lone surrogate \\uD800 in string"),
        ("\"\\uDC00\"", 1, "lone surrogate \\uDC00 in string"),
        ("\"ab\\udfff\"", 3, "lone surrogate \\uDFFF in string"),
        ("\"\\uD800\\u0041\"", 1, "lone surrogate \\uD800 in string"),
        ("\"\\uD800\\uD800\"", 1, "lone surrogate \\uD800 in string"),
        ("\"\\uD800x\"", 1, "lone surrogate \\uD800 in string"),
        ("\"\\uD800\\n\"", 1, "lone surrogate \\uD800 in string"),
        ("{\"a\":1,\"a\":2}", 7, "duplicate key \"a\""),
        ("{\"title\":\"x\",\"message\":\"\",\"title\":\"y\"}", 26, "duplicate key \"title\""),
        ("{\"a\":{\"b\":1,\"b\":1}}", 12, "duplicate key \"b\""),
        ("{\"a\\n\":1,\"a\\u000a\":2}", 9, "duplicate key \"a\\n\""),
        ("{\"\\u00e9\":1,\"e\\u0301\":2}", 12, "duplicate key \"é\""),
    ])
    func rejects(text: String, offset: Int, reason: String) {
        #expect(failure(text) == JSONSyntaxError(offset: offset, reason: reason))
    }

    @Test func duplicateKeyInLargeObject() {
        let members = (0..<20).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        let text = "{\(members),\"k3\":0}"
        #expect(failure(text)?.reason == "duplicate key \"k3\"")
        let early = "{\(members),\"k19\":0}"
        #expect(failure(early)?.reason == "duplicate key \"k19\"")
        let eighth = (0..<8).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        #expect(failure("{\(eighth),\"k7\":0}")?.reason == "duplicate key \"k7\"")
        #expect(failure("{\(eighth),\"k8\":0,\"k8\":1}")?.reason == "duplicate key \"k8\"")
    }

    @Test func longDuplicateKeyIsShortened() {
        let key = String(repeating: "k", count: 1000)
        let error = failure("{\"\(key)\":1,\"\(key)\":2}")
        #expect(error?.reason == "duplicate key \"\(String(repeating: "k", count: 64))…\"")
    }

    @Test(arguments: ["[", "{\"a\":"])
    func hundredThousandOpenersThrow(opener: String) {
        let text = String(repeating: opener, count: 100_000)
        #expect(failure(text) == JSONSyntaxError(offset: 32 * opener.utf8.count, reason: "nesting deeper than 32"))
    }

    @Test func hundredThousandBalancedArraysThrow() {
        let text = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(failure(text)?.reason == "nesting deeper than 32")
    }

    @Test(arguments: [1, 2, 10, 32, 64])
    func nestingLimit(maxDepth: Int) {
        let ok = String(repeating: "[", count: maxDepth) + String(repeating: "]", count: maxDepth)
        let deep = "[" + ok + "]"
        #expect(failure(ok, maxDepth: maxDepth) == nil)
        #expect(failure(deep, maxDepth: maxDepth) == JSONSyntaxError(
            offset: maxDepth, reason: "nesting deeper than \(maxDepth)"))
    }

    @Test func scalarsNeedNoDepth() {
        #expect(failure("1", maxDepth: 0) == nil)
        #expect(failure("[]", maxDepth: 0)?.reason == "nesting deeper than 0")
    }

    @Test(arguments: [
        ([0xFF], 0),
        ([0x22, 0xFF, 0x22], 1),
        ([0x22, 0xFE, 0x22], 1),
        ([0x22, 0x80, 0x22], 1),  // lone continuation byte
        ([0x22, 0xC0, 0xAF, 0x22], 1),  // overlong "/"
        ([0x22, 0xC1, 0xBF, 0x22], 1),  // overlong
        ([0x22, 0xE0, 0x80, 0xAF, 0x22], 1),  // overlong, three bytes
        ([0x22, 0xF0, 0x80, 0x80, 0xAF, 0x22], 1),  // overlong, four bytes
        ([0x22, 0xED, 0xA0, 0x80, 0x22], 1),  // U+D800 encoded
        ([0x22, 0xED, 0xBF, 0xBF, 0x22], 1),  // U+DFFF encoded
        ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1),  // above U+10FFFF
        ([0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], 1),
        ([0x22, 0x61, 0xE2, 0x82, 0x22], 2),  // truncated, then the closing quote
        ([0x22, 0x61, 0xE2, 0x82], 2),  // truncated at end of input
        ([0x22, 0xC3], 1),
        ([0x22, 0xF0, 0x9F, 0x98, 0x22], 1),
        ([0x22, 0xC3, 0xA9, 0xC3, 0x22], 3),  // valid é, then truncated
        ([0x22, 0x5C, 0x6E, 0xC3, 0x28, 0x22], 3),  // after an escape (slow path)
        ([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D], 2),  // in a key
        ([0x5B, 0x31, 0x2C, 0xC0, 0x5D], 3),  // where a value belongs
        ([0x5B, 0x31, 0xFF, 0x5D], 2),  // where a comma belongs
        ([0x31, 0x20, 0xED, 0xA0, 0x80], 2),  // after the value
        ([0x74, 0x72, 0xFF], 2),  // inside a literal
        ([0x2D, 0xFF], 1),  // after a minus
        ([0x22, 0x5C, 0xFF, 0x22], 2),  // as an escape
    ] as [([UInt8], Int)])
    func invalidUTF8(bytes: [UInt8], offset: Int) {
        #expect(failure(bytes) == JSONSyntaxError(offset: offset, reason: "invalid UTF-8"))
    }

    @Test(arguments: [
        [0x22, 0xC2, 0x80, 0x22],  // U+0080
        [0x22, 0xDF, 0xBF, 0x22],  // U+07FF
        [0x22, 0xE0, 0xA0, 0x80, 0x22],  // U+0800
        [0x22, 0xED, 0x9F, 0xBF, 0x22],  // U+D7FF
        [0x22, 0xEE, 0x80, 0x80, 0x22],  // U+E000
        [0x22, 0xEF, 0xBF, 0xBF, 0x22],  // U+FFFF
        [0x22, 0xF0, 0x90, 0x80, 0x80, 0x22],  // U+10000
        [0x22, 0xF4, 0x8F, 0xBF, 0xBF, 0x22],  // U+10FFFF
    ] as [[UInt8]])
    func validUTF8Boundaries(bytes: [UInt8]) throws {
        let value = try JSONParser.parse(bytes)
        #expect(value.stringValue.map { Array($0.utf8) } == Array(bytes.dropFirst().dropLast()))
    }

    @Test func errorDescription() {
        let error = JSONSyntaxError(offset: 3, reason: "unexpected end of input")
        #expect("\(error)" == "JSON syntax error at byte 3: unexpected end of input")
    }
}
