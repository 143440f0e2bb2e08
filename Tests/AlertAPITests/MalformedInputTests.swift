import AlertAPI
import Foundation
import Testing

/// Bodies a careless or hostile client sends: always a problem, never a crash or a 500,
/// and the server keeps serving.
@Suite("Malformed and oversize input")
struct MalformedInputTests {
    struct Malformed: Sendable, CustomTestStringConvertible {
        var name: String
        var body: [UInt8]
        /// 400 for JSON that does not parse, 422 for JSON of the wrong shape.
        var status: Int
        var testDescription: String { name }

        init(_ name: String, _ body: String, _ status: Int) {
            self.init(name, Array(body.utf8), status)
        }

        init(_ name: String, _ body: [UInt8], _ status: Int) {
            self.name = name
            self.body = body
            self.status = status
        }
    }

    static let cases: [Malformed] = [
        Malformed("empty body", "", 400),
        Malformed("{", "{", 400),
        Malformed("[]", "[]", 422),
        Malformed("\"str\"", #""str""#, 422),
        Malformed("null", "null", 422),
        Malformed("42", "42", 422),
        Malformed("trailing garbage {}x", "{}x", 400),
        Malformed("two documents", #"{"message":"a"}{"message":"b"}"#, 400),
        Malformed("invalid UTF-8 (0xFF 0xFE) in a string",
                  Array(#"{"message":""#.utf8) + [0xFF, 0xFE] + Array(#"","buttonIndex":0}"#.utf8), 400),
        Malformed("lone surrogate escape", #"{"message":"\ud800","button":"\udc00"}"#, 400),
        Malformed("10,000 nested [", String(repeating: "[", count: 10_000), 400),
        Malformed("10,000 nested [ closed", String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000), 400),
        Malformed("duplicate keys", #"{"message":"a","message":"b","button":"x","button":"y"}"#, 400),
        Malformed("NaN", #"{"message":"x","timeout":NaN,"buttonIndex":NaN}"#, 400),
        Malformed("single quotes", "{'message':'hi'}", 400),
        Malformed("unterminated string", #"{"message":"hi"#, 400),
        Malformed("control character in a string", "{\"message\":\"a\u{01}b\"}", 400),
        Malformed("a NUL byte", [0x7B, 0x00, 0x7D], 400),
        Malformed("form-encoded body", "message=hi&title=t", 400),
    ]

    @Test("Malformed bodies are 400/422 problems and the server keeps serving",
          arguments: cases, ["/v1/alerts", "response"])
    func malformed(_ example: Malformed, endpoint: String) async throws {
        try await LiveServer.with { server in
            let id = try await server.create(#"{"title":"target","buttons":["Cancel","OK"]}"#)
            let target = endpoint == "response" ? "/v1/alerts/\(id)/response" : endpoint
            let response = try await server.post(target, bytes: example.body)
            expectProblem(response, example.status)
            if example.status == 400 {
                #expect(response.json["type"] == .string("urn:alertd:problem:malformed-json"))
            }
            try await server.expectStillServing()
            // Nothing resolved or created by accident.
            #expect(try await server.response(id).status == 204)
            #expect(try await server.listIDs().count == 2)
        }
    }

    @Test("A POST without any body or Content-Length is a 400 problem", arguments: ["/v1/alerts", "response"])
    func noBody(endpoint: String) async throws {
        try await LiveServer.with { server in
            let id = try await server.create(#"{"message":"target"}"#)
            let target = endpoint == "response" ? "/v1/alerts/\(id)/response" : endpoint
            let response = try await server.send("POST", target)
            expectProblem(response, 400, type: "urn:alertd:problem:malformed-json")
            try await server.expectStillServing()
        }
    }

    @Test("A 70,000-byte body is 413", arguments: ["/v1/alerts", "response"])
    func oversize(endpoint: String) async throws {
        try await LiveServer.with { server in
            let id = try await server.create(#"{"message":"target"}"#)
            let target = endpoint == "response" ? "/v1/alerts/\(id)/response" : endpoint
            let body = Array(#"{"message":""#.utf8) + Array(repeating: UInt8(ascii: "x"), count: 70_000 - 14)
                + Array(#""}"#.utf8)
            #expect(body.count == 70_000)
            let response = try await server.post(target, bytes: body)
            expectProblem(response, 413, type: "urn:alertd:problem:body-too-large")
            try await server.expectStillServing()
            #expect(try await server.response(id).status == 204)
        }
    }

    @Test("A chunked body over 64 KiB is 413")
    func oversizeChunked() async throws {
        try await LiveServer.with { server in
            var request = Array("""
                POST /v1/alerts HTTP/1.1\r
                Host: 127.0.0.1\r
                Connection: close\r
                Transfer-Encoding: chunked\r
                \r

                """.utf8)
            let chunk = Array(repeating: UInt8(ascii: " "), count: 8192)
            request += Array("1\r\n{\r\n".utf8)
            for _ in 0..<9 {
                request += Array("2000\r\n".utf8) + chunk + Array("\r\n".utf8)
            }
            request += Array(#"e\#r\#n"message":"x"}\#r\#n0\#r\#n\#r\#n"#.utf8)
            let response = try await server.raw(request)
            expectProblem(response, 413, type: "urn:alertd:problem:body-too-large")
            try await server.expectStillServing()
        }
    }

    @Test("A small chunked body is accepted")
    func smallChunked() async throws {
        try await LiveServer.with { server in
            let body = #"{"message":"chunked"}"#
            let request = Array("""
                POST /v1/alerts HTTP/1.1\r
                Host: 127.0.0.1\r
                Connection: close\r
                Transfer-Encoding: chunked\r
                \r
                \(String(body.utf8.count, radix: 16))\r
                \(body)\r
                0\r
                \r

                """.utf8)
            let response = try await server.raw(request)
            #expect(response.status == 201, "\(response.text)")
            #expect(response.json["message"] == .string("chunked"))
        }
    }

    @Test("A body of exactly 65,536 bytes is read (422 for the long message), 65,537 is 413")
    func bodyLimitBoundary() async throws {
        try await LiveServer.with { server in
            func body(size: Int) -> [UInt8] {
                let json = Array(#"{"message":"\#(String(repeating: "x", count: 5000))"}"#.utf8)
                return Array(json.dropLast()) + Array(repeating: UInt8(ascii: " "), count: size - json.count)
                    + [UInt8(ascii: "}")]
            }
            let exact = body(size: 65_536)
            #expect(exact.count == 65_536)
            let atLimit = try await server.post("/v1/alerts", bytes: exact)
            expectProblem(atLimit, 422, pointer: "/message")

            let over = body(size: 65_537)
            #expect(over.count == 65_537)
            expectProblem(try await server.post("/v1/alerts", bytes: over), 413)
            try await server.expectStillServing()
        }
    }

    @Test("A valid create padded with whitespace to 65,536 bytes is 201")
    func paddedValidCreate() async throws {
        try await LiveServer.with { server in
            let json = Array(#"{"message":"padded"}"#.utf8)
            let body = Array(json.dropLast()) + Array(repeating: UInt8(ascii: "\n"), count: 65_536 - json.count)
                + [UInt8(ascii: "}")]
            #expect(body.count == 65_536)
            let response = try await server.post("/v1/alerts", bytes: body)
            #expect(response.status == 201, "\(response.text)")
        }
    }
}
