import Testing

@testable import AlertAPI
import JSON

/// The writer's output as text.
private func text(_ build: (inout JSONWriter) -> Void) -> String {
    var writer = JSONWriter(capacity: 16)
    build(&writer)
    return String(decoding: writer.bytes, as: UTF8.self)
}

@Suite("JSONWriter")
struct JSONWriterTests {
    @Test func scalars() {
        #expect(text { $0.writeNull() } == "null")
        #expect(text { $0.write(true) } == "true")
        #expect(text { $0.write(false) } == "false")
        #expect(text { $0.write(0) } == "0")
        #expect(text { $0.write(-7) } == "-7")
        #expect(text { $0.write(Int64.max) } == "9223372036854775807")
        #expect(text { $0.write(Int64.min) } == "-9223372036854775808")
        #expect(text { $0.write(Int.min) } == "-9223372036854775808")
        #expect(text { $0.write(1_000_000) } == "1000000")
    }

    @Test(arguments: [
        (1.5, "1.5"), (1.0, "1.0"), (-0.0, "-0.0"), (0.1, "0.1"), (1e20, "1e+20"), (1e-5, "1e-05"),
        (Double.nan, "null"), (Double.infinity, "null"), (-Double.infinity, "null"),
        (Double.greatestFiniteMagnitude, "1.7976931348623157e+308"),
    ])
    func doubles(value: Double, expected: String) {
        #expect(text { $0.write(value) } == expected)
    }

    @Test(arguments: [
        ("plain", #""plain""#),
        ("", #""""#),
        ("a\"b", #""a\"b""#),
        ("a\\b", #""a\\b""#),
        ("/", #""/""#),
        ("\n\r\t\u{8}\u{C}", #""\n\r\t\b\f""#),
        ("\u{0}\u{1}\u{1F}", #""\u0000\u0001\u001f""#),
        ("\u{B}\u{1A}", #""\u000b\u001a""#),
        ("\u{7F}", "\"\u{7F}\""),
        ("é€😀", "\"é€😀\""),
        ("\u{2028}", "\"\u{2028}\""),
        ("x\"", #""x\"""#),
    ])
    func stringEscaping(value: String, expected: String) {
        #expect(text { $0.write(value) } == expected)
    }

    @Test func streamingObject() {
        let output = text { writer in
            writer.beginObject()
            writer.key("id")
            writer.write("q3l8")
            writer.key("tag")
            writer.write(0)
            writer.key("buttons")
            writer.beginArray()
            for (index, title) in ["Cancel", "OK"].enumerated() {
                writer.beginObject()
                writer.key("index")
                writer.write(index)
                writer.key("title")
                writer.write(title)
                writer.endObject()
            }
            writer.endArray()
            writer.key("empty")
            writer.beginArray()
            writer.endArray()
            writer.key("none")
            writer.beginObject()
            writer.endObject()
            writer.key("result")
            writer.writeNull()
            writer.key("we\"ird")
            writer.write(1.5)
            writer.endObject()
        }
        let expected = #"{"id":"q3l8","tag":0,"buttons":[{"index":0,"title":"Cancel"},{"index":1,"title":"OK"}],"#
            + #""empty":[],"none":{},"result":null,"we\"ird":1.5}"#
        #expect(output == expected)
    }

    @Test func streamingArrays() {
        let output = text { writer in
            writer.beginArray()
            writer.beginArray()
            writer.endArray()
            writer.write(true)
            writer.beginArray()
            writer.write(1)
            writer.beginObject()
            writer.endObject()
            writer.endArray()
            writer.writeNull()
            writer.endArray()
        }
        #expect(output == "[[],true,[1,{}],null]")
    }

    @Test func valuesWriteCompactlyInOrder() {
        let value = JSONValue.object([
            "z": .integer(1), "a": .array([.null, .bool(false), .number(2.5), .string("x")]), "m": .object([:]),
        ])
        #expect(String(decoding: JSONWriter.encode(value), as: UTF8.self)
            == #"{"z":1,"a":[null,false,2.5,"x"],"m":{}}"#)
    }

    @Test func everyEscapeRoundTrips() throws {
        let controls = String(String.UnicodeScalarView((0..<0x20).map { Unicode.Scalar(UInt8($0)) }))
        let string = controls + "\"\\/\u{7F}é€😀\u{10FFFF}\u{FEFF}abc"
        var writer = JSONWriter()
        writer.write(string)
        #expect(try JSONParser.parse(writer.bytes) == .string(string))
    }

    @Test(arguments: [
        JSONValue.null, .bool(true), .integer(.max), .integer(.min), .integer(0), .number(1.0), .number(-0.0),
        .number(0.1), .number(1e300), .number(.leastNonzeroMagnitude), .number(-1.2345678901234567e-100),
        .number(9.3e18),
        .string("line\nbreak \"quoted\" \\ tab\t é 😀"),
        .array([.integer(1), .array([]), .object(["k": .array([.string("v")])])]),
        .object(["title": .string("Login"), "tag": .integer(-3), "timeout": .number(2.5), "ok": .bool(true),
                 "nested": .object(["a": .null, "b": .array([.number(1e-7)])])]),
    ])
    func valuesRoundTripThroughParser(value: JSONValue) throws {
        #expect(try JSONParser.parse(JSONWriter.encode(value)) == value)
    }

    @Test func manyDoublesRoundTrip() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<1000 {
            let value = Double(bitPattern: generator.next())
            guard value.isFinite else { continue }
            #expect(try JSONParser.parse(JSONWriter.encode(.number(value))) == .number(value))
        }
    }
}
