import Foundation
import HTTPTestSupport
import MicroHTTP
import Testing

/// The attack battery's malformed framing (issue 11, items 6 and 7), as raw bytes: each request gets
/// one 4xx (or 501/505) answer and its connection closed, and neither it nor anything smuggled behind
/// it reaches the handler.
@Suite("Request framing (RFC 9112)")
struct FramingTests {
    /// A request line and headers, then `rest` (a body, a smuggled request).
    static func head(_ lines: [String], _ rest: String = "") -> [UInt8] {
        Array((lines.joined(separator: "\r\n") + "\r\n\r\n" + rest).utf8)
    }

    static let smuggled = "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n"

    /// Requests alertd refuses itself, before the handler, with the status they get.
    static let refused: [(String, [UInt8], Int)] = [
        ("Content-Length and Transfer-Encoding",
         head(["POST /x HTTP/1.1", "Host: x", "Content-Length: 4", "Transfer-Encoding: chunked"],
              "0\r\n\r\n" + smuggled), 400),
        ("two differing Content-Lengths",
         head(["POST /x HTTP/1.1", "Host: x", "Content-Length: 0", "Content-Length: 35"], smuggled), 400),
        ("a space before the colon",
         head(["POST /x HTTP/1.1", "Host: x", "Transfer-Encoding : chunked"], "0\r\n\r\n" + smuggled), 400),
        ("HTTP/1.1 without Host", head(["GET /x HTTP/1.1"]), 400),
        ("two Hosts", head(["GET /x HTTP/1.1", "Host: x", "Host: y"]), 400),
        ("an unknown transfer coding", head(["POST /x HTTP/1.1", "Host: x", "Transfer-Encoding: gzip"], "abc"), 400),
        ("chunked not last", head(["POST /x HTTP/1.1", "Host: x", "Transfer-Encoding: chunked, gzip"]), 400),
        ("a coding before chunked", head(["POST /x HTTP/1.1", "Host: x", "Transfer-Encoding: gzip, chunked"]), 501),
        ("HTTP/1.0 with Transfer-Encoding",
         head(["POST /x HTTP/1.0", "Transfer-Encoding: chunked"], "0\r\n\r\n"), 400),
        ("a space in the target", head(["GET /a b HTTP/1.1", "Host: x"]), 400),
        ("a control byte in the target", head(["GET /a\u{1}b HTTP/1.1", "Host: x"]), 400),
    ]

    /// Every request refused before the handler: by alertd's checks, and by libmicrohttpd's.
    static let everyRefusal = refused + refusedByLibrary

    @Test("Each is refused with its status, through the handler, once, and the connection closed",
          arguments: everyRefusal.indices)
    func refusedFraming(_ index: Int) async throws {
        let (name, bytes, status) = Self.everyRefusal[index]
        let probe = ProbeHandler()
        try await withEchoServer(handler: probe, withLongTimeouts()) { server in
            #expect(server.answersMalformedRequests)
            let watch = ContinuousClock.now
            let answer = try await Wire.run(port: server.port) { wire in
                try wire.send(String(decoding: bytes, as: UTF8.self))
                return try wire.readToEnd()
            }
            try Self.expectOneRefusal(answer, status, name)
            #expect(probe.handled == 0, "\(name): never reaches the handler")
            #expect(probe.failures == 1, "\(name): the handler renders (logs, counts) the refusal once")
            let elapsed = (ContinuousClock.now - watch) / .seconds(1)
            #expect(elapsed < TestTime.sooner(than: idleTimeout), "\(name): at once, not at the head timeout")
        }
    }

    @Test("Header lines that nearly fill the connection's memory get the handler's 431, not a silent close",
          arguments: [7_775, 7_850, 7_925])
    func headersNearConnectionMemory(_ size: Int) async throws {
        try await withEchoServer(handler: ProbeHandler()) { server in
            let line = "X-Big: " + String(repeating: "b", count: size - 9)
            let response = try await RawHTTP.exchange(Self.head(["GET / HTTP/1.1", "Host: x", line]), port: server.port,
                                                      timeout: idleTimeout)
            #expect(response.status == 431)
            #expect(response.text == "refused: 431\n")
        }
    }

    @Test("A target of about 8,100 bytes gets the handler's 414 at once, not a 408 after the head timeout",
          arguments: [7_900, 8_100])
    func targetNearConnectionMemory(_ size: Int) async throws {
        try await withEchoServer(handler: ProbeHandler(), withLongTimeouts()) { server in
            let watch = ContinuousClock.now
            let target = "/?q=" + String(repeating: "a", count: size - 4)
            let response = try await RawHTTP.exchange(Self.head(["GET \(target) HTTP/1.1", "Host: x"]),
                                                      port: server.port, timeout: idleTimeout)
            #expect(response.status == 414)
            #expect(response.text == "refused: 414\n")
            let elapsed = (ContinuousClock.now - watch) / .seconds(1)
            #expect(elapsed < TestTime.sooner(than: idleTimeout), "at once, not at the head timeout")
        }
    }

    @Test("A body that stops short of its Content-Length gets 408 at --body-timeout, not a silent idle close")
    func bodyStopsShort() async throws {
        let probe = ProbeHandler()
        try await withEchoServer(handler: probe, withLongTimeouts { $0.bodyTimeout = 1 }) { server in
            let watch = ContinuousClock.now
            let answer = try await Wire.run(port: server.port) { wire in
                try wire.send("POST /now HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"title\":")
                return try wire.readToEnd()
            }
            let response = try RawHTTP.parse(answer)
            #expect(response.status == 408)
            #expect(response.text == "refused: 408\n")
            let elapsed = (ContinuousClock.now - watch) / .seconds(1)
            #expect(elapsed < TestTime.sooner(than: idleTimeout), "1 s plus a watchdog pass, not the idle timeout")
            #expect(probe.handled == 0)
        }
    }

    @Test("The path reaches the handler as sent; the query is decoded")
    func rawPath() async throws {
        try await withEchoServer { server in
            let response = try await RawHTTP.exchange(RawHTTP.request("GET", "/a%2Fb%00c?x=%2F%20y&z=a+b"),
                                                      port: server.port)
            #expect(response.text == "GET /a%2Fb%00c ?x=/ y&z=a b body=0")
        }
    }

    @Test("Trailing spaces and tabs of header values are not part of the value (RFC 9110 §5.5)")
    func trailingWhitespace() async throws {
        let probe = ProbeHandler()
        try await withEchoServer(handler: probe) { server in
            let response = try await RawHTTP.exchange(
                Self.head(["GET /header HTTP/1.1", "Host: x", "X-Key:  k \t", "Connection: close"]), port: server.port)
            #expect(response.text == "[k]")
        }
    }

    /// Requests libmicrohttpd 0.9.75 refuses itself, before any callback sees their head (the version before the
    /// URI log callback, the header lines before the first handler call, a chunk size between body calls), with
    /// the status the handler's answer has. For a bad Content-Length, libmicrohttpd's own page had its status
    /// line and headers twice.
    static let refusedByLibrary: [(String, [UInt8], Int)] = [
        ("Content-Length: -1", head(["POST /x HTTP/1.1", "Host: x", "Content-Length: -1"]), 400),
        ("Content-Length: +13", head(["POST /x HTTP/1.1", "Host: x", "Content-Length: +13"], "{\"title\":\"t\"}"), 400),
        ("Content-Length: 13, 13",
         head(["POST /x HTTP/1.1", "Host: x", "Content-Length: 13, 13"], "{\"title\":\"t\"}"), 400),
        ("Content-Length: 2^64", head(["POST /x HTTP/1.1", "Host: x", "Content-Length: 18446744073709551616"]), 413),
        ("HTTP/0.9", Array("GET /x\r\n".utf8), 400),
        ("a header without a colon", head(["GET /x HTTP/1.1", "Host: x", "NoColon"]), 400),
        ("a too-large chunk size",
         head(["POST /x HTTP/1.1", "Host: x", "Transfer-Encoding: chunked"], "FFFFFFFFFFFFFFFFFF\r\nabc\r\n"), 413),
        ("a chunk size that is not hexadecimal",
         head(["POST /x HTTP/1.1", "Host: x", "Transfer-Encoding: chunked"], "zz\r\nabc\r\n"), 400),
        // libmicrohttpd's own answer was its HTML 500 ("read the documentation about connection management").
        ("a chunk-size line longer than the connection's memory",
         head(["POST /x HTTP/1.1", "Host: x", "Transfer-Encoding: chunked"],
              String(repeating: "0", count: 9000) + "5\r\nhello\r\n0\r\n\r\n"), 400),
        ("a chunk extension longer than the connection's memory",
         head(["POST /x HTTP/1.1", "Host: x", "Transfer-Encoding: chunked"],
              "5;" + String(repeating: "x", count: 9000) + "\r\nhello\r\n0\r\n\r\n"), 400),
        ("HTTP/2.0", head(["GET /x HTTP/2.0", "Host: x"]), 505),
        ("HTTP/0.9 by name", head(["GET /x HTTP/0.9", "Host: x"]), 505),
    ]

    /// A request the handler answers, keeping the connection open.
    static let first = "GET /first HTTP/1.1\r\nHost: x\r\n\r\n"

    /// Checks that `answer` (everything until the server closed) is exactly one answer: the handler's, with
    /// `status`, closing the connection; nothing for a smuggled request, no page of libmicrohttpd's.
    static func expectOneRefusal(_ answer: [UInt8], _ status: Int, _ name: String) throws {
        let response = try RawHTTP.parse(answer)
        #expect(response.status == status, "\(name): \(response)")
        #expect(response.headers["connection"] == "close", "\(name)")
        #expect(response.text == "refused: \(status)\n", "\(name): the handler's response, not libmicrohttpd's page")
        let text = String(decoding: answer, as: UTF8.self)
        #expect(text.components(separatedBy: "HTTP/1.1 ").count == 2, "\(name): one status line: \(text)")
        #expect(answer.count == text.utf8.count && !text.contains("<html>"), "\(name): nothing after the answer")
    }

    @Test("Each second on a keep-alive connection, after an answered request or pipelined behind it",
          arguments: everyRefusal.indices)
    func refusedOnKeepAlive(_ index: Int) async throws {
        let (name, bytes, status) = Self.everyRefusal[index]
        let probe = ProbeHandler()
        try await withEchoServer(handler: probe, withLongTimeouts()) { server in
            let (answered, rest) = try await Wire.run(port: server.port) { wire in
                try wire.send(Self.first)
                let answered = try wire.readResponse()
                try wire.send(String(decoding: bytes, as: UTF8.self))
                return (answered, try wire.readToEnd())
            }
            #expect(answered.status == 200 && answered.headers["connection"] == nil, "\(name): kept alive")
            try Self.expectOneRefusal(rest, status, name + " (second)")
            let (pipelined, after) = try await Wire.run(port: server.port) { wire in
                try wire.send(Self.first + String(decoding: bytes, as: UTF8.self))
                return (try wire.readResponse(), try wire.readToEnd())
            }
            #expect(pipelined.status == 200, "\(name)")
            try Self.expectOneRefusal(after, status, name + " (pipelined)")
            #expect(probe.handled == 2, "\(name): only the first requests reach the handler")
            #expect(probe.failures == 2, "\(name): the handler renders each refusal once")
        }
    }
}
