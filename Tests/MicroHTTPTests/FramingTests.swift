import Foundation
import HTTPTestSupport
import MicroHTTP
import Testing

/// The attack battery's malformed framing (issue 11, items 6 and 7), as raw bytes: each request gets
/// one 4xx (or 501) answer, the handler's or libmicrohttpd's own, and its connection closed, and neither
/// it nor anything smuggled behind it reaches the handler.
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

    @Test("Each is refused with its status, through the handler, once, and the connection closed",
          arguments: refused.indices)
    func refusedFraming(_ index: Int) async throws {
        let (name, bytes, status) = Self.refused[index]
        let probe = ProbeHandler()
        try await withEchoServer(handler: probe, withLongTimeouts()) { server in
            try Self.expectOneRefusal(try await Self.alone(bytes, port: server.port, name), status, name)
            #expect(probe.handled == 0, "\(name): never reaches the handler")
            #expect(probe.failures == 1, "\(name): the handler renders (logs, counts) the refusal once")
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

    /// Requests libmicrohttpd 0.9.75 refuses itself, before any callback of the transport sees what it checks (the
    /// version before the URI log callback, the header lines before the first handler call, a chunk-size line
    /// between body calls, a head or a line too large for the connection's memory at any read), each with a
    /// request behind it that must not be run, and the status of libmicrohttpd's answer: its own HTML page with
    /// `Connection: close` (for a bad Content-Length, its status line and headers twice).
    static let refusedByLibrary: [(String, [UInt8], Int)] = [
        ("Content-Length: -1", head(["POST /x HTTP/1.1", "Host: x", "Content-Length: -1"], smuggled), 400),
        ("Content-Length: +13",
         head(["POST /x HTTP/1.1", "Host: x", "Content-Length: +13"], "{\"title\":\"t\"}" + smuggled), 400),
        ("Content-Length: 13, 13",
         head(["POST /x HTTP/1.1", "Host: x", "Content-Length: 13, 13"], "{\"title\":\"t\"}" + smuggled), 400),
        ("an empty Content-Length", head(["POST /x HTTP/1.1", "Host: x", "Content-Length: "], smuggled), 400),
        ("Content-Length: 2^64",
         head(["POST /x HTTP/1.1", "Host: x", "Content-Length: 18446744073709551616"], smuggled), 413),
        ("HTTP/0.9", Array(("GET /x\r\n" + smuggled).utf8), 400),
        ("a header without a colon", head(["GET /x HTTP/1.1", "Host: x", "NoColon"], smuggled), 400),
        ("a too-large chunk size",
         head(["POST /x HTTP/1.1", "Host: x", "Transfer-Encoding: chunked"], "FFFFFFFFFFFFFFFFFF\r\n" + smuggled), 413),
        ("a chunk size that is not hexadecimal",
         head(["POST /x HTTP/1.1", "Host: x", "Transfer-Encoding: chunked"], "zz\r\n" + smuggled), 400),
        ("chunk data without its CRLF",
         head(["POST /x HTTP/1.1", "Host: x", "Transfer-Encoding: chunked"], "5\r\nhelloXX0\r\n\r\n" + smuggled), 400),
        // libmicrohttpd's 500 page "read the documentation about connection management": the body's next line
        // does not fit in the connection's memory, and the library cannot tell that from an application that
        // leaves body bytes unread.
        ("a chunk-size line longer than the connection's memory",
         head(["POST /x HTTP/1.1", "Host: x", "Transfer-Encoding: chunked"],
              String(repeating: "0", count: 9000) + "5\r\nhello\r\n0\r\n\r\n" + smuggled), 500),
        ("a chunk extension longer than the connection's memory",
         head(["POST /x HTTP/1.1", "Host: x", "Transfer-Encoding: chunked"],
              "5;" + String(repeating: "x", count: 9000) + "\r\nhello\r\n0\r\n\r\n" + smuggled), 500),
        ("a trailer longer than the connection's memory",
         head(["POST /x HTTP/1.1", "Host: x", "Transfer-Encoding: chunked"],
              "5\r\nhello\r\n0\r\nX-T: " + String(repeating: "t", count: 9000) + "\r\n\r\n" + smuggled), 431),
        ("HTTP/2.0", head(["GET /x HTTP/2.0", "Host: x"], smuggled), 505),
        ("HTTP/0.9 by name", head(["GET /x HTTP/0.9", "Host: x"], smuggled), 505),
        ("HTTP/3", head(["GET /x HTTP/3", "Host: x"], smuggled), 400),
        ("a version in lower case", head(["GET /x http/1.1", "Host: x"], smuggled), 400),
        ("a target longer than the connection's memory",
         head(["GET /?q=" + String(repeating: "a", count: 9000) + " HTTP/1.1", "Host: x"], smuggled), 414),
        ("header lines longer than the connection's memory",
         head(["GET /x HTTP/1.1", "Host: x", "X-Big: " + String(repeating: "b", count: 9000)], smuggled), 431),
    ]

    @Test("Each request libmicrohttpd refuses itself gets its status and a close; nothing of it or behind it runs",
          arguments: refusedByLibrary.indices)
    func refusedByLibmicrohttpd(_ index: Int) async throws {
        let (name, bytes, status) = Self.refusedByLibrary[index]
        let probe = ProbeHandler()
        try await withEchoServer(handler: probe, withLongTimeouts()) { server in
            try Self.expectLibraryRefusal(try await Self.alone(bytes, port: server.port, name), status, name)
            #expect(probe.handled == 0, "\(name): neither it nor the request behind it reaches the handler")
            #expect(probe.failures == 0, "\(name): libmicrohttpd answers it; the handler renders nothing")
            try await Self.expectServing(server, probe, handled: 1, name)
        }
    }

    @Test("A request line with no space, or starting with one, is closed without an answer, and nothing runs",
          arguments: ["GARBAGE\r\n\r\n", " GET /x HTTP/1.1\r\nHost: x\r\n\r\n"])
    func closedUnanswered(_ line: String) async throws {
        let probe = ProbeHandler()
        try await withEchoServer(handler: probe, withLongTimeouts()) { server in
            let answer = try await Wire.run(port: server.port) { wire in
                try wire.send(line + Self.smuggled)
                return try wire.readToEnd()
            }
            #expect(answer.isEmpty, "\(String(decoding: answer, as: UTF8.self))")
            #expect(probe.handled == 0 && probe.failures == 0)
            try await Self.expectServing(server, probe, handled: 1, line)
        }
    }

    /// Checks that `answer` (everything until the server closed) is libmicrohttpd's own refusal with `status`,
    /// closing the connection, and no answer to a request smuggled behind it.
    static func expectLibraryRefusal(_ answer: [UInt8], _ status: Int, _ name: String) throws {
        let response = try RawHTTP.parse(answer)
        #expect(response.status == status, "\(name): \(response)")
        #expect(response.headers["connection"] == "close", "\(name)")
        let text = String(decoding: answer, as: UTF8.self)
        #expect(text.contains("<html>") && !text.contains("refused: "), "\(name): libmicrohttpd's page: \(text)")
        #expect(!text.contains("HTTP/1.1 200"), "\(name): nothing answered for the request behind it: \(text)")
    }

    /// Sends `bytes` on a connection of its own and reads until the server closes it, which it must do at once.
    static func alone(_ bytes: [UInt8], port: Int, _ name: String) async throws -> [UInt8] {
        let watch = ContinuousClock.now
        let answer = try await Wire.run(port: port) { wire in
            try wire.send(String(decoding: bytes, as: UTF8.self))
            return try wire.readToEnd()
        }
        let elapsed = (ContinuousClock.now - watch) / .seconds(1)
        #expect(elapsed < TestTime.sooner(than: idleTimeout), "\(name): at once, not at the head timeout")
        return answer
    }

    /// Checks that `server` answers a request on a new connection, the `handled`th its handler ran.
    static func expectServing(_ server: HTTPServer, _ probe: ProbeHandler, handled: Int, _ name: String) async throws {
        let next = try await RawHTTP.exchange(RawHTTP.request("GET", "/now"), port: server.port, timeout: idleTimeout)
        #expect(next.status == 200 && next.text == "ran", "\(name): the next connection is served: \(next)")
        #expect(probe.handled == handled, "\(name)")
    }

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
          arguments: refused.indices)
    func refusedOnKeepAlive(_ index: Int) async throws {
        let (name, bytes, status) = Self.refused[index]
        let probe = ProbeHandler()
        try await withEchoServer(handler: probe, withLongTimeouts()) { server in
            let (second, pipelined) = try await Self.afterAnswered(bytes, port: server.port, name)
            try Self.expectOneRefusal(second, status, name + " (second)")
            try Self.expectOneRefusal(pipelined, status, name + " (pipelined)")
            #expect(probe.handled == 2, "\(name): only the first requests reach the handler")
            #expect(probe.failures == 2, "\(name): the handler renders each refusal once")
        }
    }

    @Test("Each libmicrohttpd refusal second on a keep-alive connection, after an answered request or pipelined",
          arguments: refusedByLibrary.indices)
    func refusedByLibmicrohttpdOnKeepAlive(_ index: Int) async throws {
        let (name, bytes, status) = Self.refusedByLibrary[index]
        let probe = ProbeHandler()
        try await withEchoServer(handler: probe, withLongTimeouts()) { server in
            let (second, pipelined) = try await Self.afterAnswered(bytes, port: server.port, name)
            try Self.expectLibraryRefusal(second, status, name + " (second)")
            try Self.expectLibraryRefusal(pipelined, status, name + " (pipelined)")
            #expect(probe.handled == 2, "\(name): only the first requests reach the handler")
            #expect(probe.failures == 0, "\(name): libmicrohttpd answers each; the handler renders nothing")
            try await Self.expectServing(server, probe, handled: 3, name)
        }
    }

    /// Sends `bytes` after `first` on a keep-alive connection, once after its answer and once pipelined behind it
    /// on another, and checks that `first` is answered each time.
    /// - Returns: what each connection got after the answer to `first`, until the server closed it.
    static func afterAnswered(_ bytes: [UInt8], port: Int, _ name: String) async throws -> ([UInt8], [UInt8]) {
        let (answered, second) = try await Wire.run(port: port) { wire in
            try wire.send(Self.first)
            let answered = try wire.readResponse()
            try wire.send(String(decoding: bytes, as: UTF8.self))
            return (answered, try wire.readToEnd())
        }
        #expect(answered.status == 200 && answered.headers["connection"] == nil, "\(name): kept alive")
        let (before, pipelined) = try await Wire.run(port: port) { wire in
            try wire.send(Self.first + String(decoding: bytes, as: UTF8.self))
            return (try wire.readResponse(), try wire.readToEnd())
        }
        #expect(before.status == 200, "\(name)")
        return (second, pipelined)
    }
}
