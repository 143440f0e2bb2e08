@testable import AlertAPI
import Foundation
import HTTPTestSupport
import JSON
import Testing

/// `POST /mcp`, MCP's Streamable HTTP transport: the HTTP rules every route keeps (tokens, roles, origins, problems),
/// JSON-RPC's error objects, and a call that waits: an event stream of progress, then the result, holding nothing
/// once the client hangs up. The tools themselves are AlertMCP's (its own tests, and scripts/mcp_test.py with the
/// Python SDK as the client).
@Suite("MCP over HTTP")
struct MCPHTTPTests {
    static let producer = "ci-producer-token-0001"
    static let responder = "alice-responder-token-03"
    static let monitor = "prom-monitor-token-0005"
    static let tokens = "ci:producer:\(producer),alice:responder:\(responder),prom:monitor:\(monitor)"

    static func withTokens(_ configure: @escaping (inout AlertdConfiguration) -> Void = { _ in },
                           _ body: (LiveServer) async throws -> Void) async throws {
        try await LiveServer.with({
            $0.tokens = try! AccessTokens(parsing: tokens, source: "test")
            $0.mcp.progressInterval = .seconds(1)
            configure(&$0)
        }, body)
    }

    static func headers(_ token: String?, accept: String = "application/json, text/event-stream")
        -> [(String, String)]
    {
        [("Content-Type", "application/json"), ("Accept", accept)] + (token.map { [("Authorization", "Bearer \($0)")] } ?? [])
    }

    static func call(_ id: Int, _ method: String, _ params: String = "{}") -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"#
    }

    static func ask(_ id: Int, title: String, progress: Bool = true) -> String {
        let meta = progress ? #","_meta":{"progressToken":"p\#(id)"}"# : ""
        return call(id, "tools/call", #"{"name":"ask","arguments":{"title":"\#(title)"}\#(meta)}"#)
    }

    @Test("without a token POST /mcp is 401 with a Bearer challenge; GET and DELETE are 405 with Allow: POST; over 64 KiB is 413; a monitor token is 403")
    func refusals() async throws {
        try await Self.withTokens { server in
            let anonymous = try await server.send("POST", "/mcp", body: Self.call(1, "ping"), headers: Self.headers(nil))
            _ = expectProblem(anonymous, 401, type: "urn:alertd:problem:unauthorized")
            #expect(anonymous.headers["www-authenticate"] == #"Bearer realm="alertd""#)
            for method in ["GET", "DELETE"] {
                let response = try await server.send(method, "/mcp", headers: Self.headers(Self.producer))
                _ = expectProblem(response, 405)
                #expect(response.headers["allow"] == "POST", "\(method)")
            }
            let large = Self.call(1, "tools/call", #"{"name":"ask","arguments":{"message":"\#(String(repeating: "x", count: 70_000))"}}"#)
            let tooLarge = try await server.send("POST", "/mcp", body: large, headers: Self.headers(Self.producer))
            _ = expectProblem(tooLarge, 413)
            let monitor = try await server.send("POST", "/mcp", body: Self.call(1, "ping"),
                                                headers: Self.headers(Self.monitor))
            _ = expectProblem(monitor, 403, type: "urn:alertd:problem:forbidden")
            let ping = try await server.send("POST", "/mcp", body: Self.call(1, "ping"),
                                             headers: Self.headers(Self.producer))
            #expect(ping.status == 200 && ping.contentType == "application/json")
            #expect(ping.json == .object(["jsonrpc": .string("2.0"), "id": .integer(1), "result": .object([:])]))
        }
    }

    @Test("a web page's Origin is 403, with tokens (MCP's rule) and without (every route's); an allowed one is served")
    func foreignOrigin() async throws {
        try await Self.withTokens({ $0.allowedOrigins = ["https://console.example"] }) { server in
            let evil = try await server.send("POST", "/mcp", body: Self.call(1, "ping"),
                                             headers: Self.headers(Self.producer) + [("Origin", "http://evil.example")])
            _ = expectProblem(evil, 403, type: "urn:alertd:problem:origin-not-allowed")
            let allowed = try await server.send("POST", "/mcp", body: Self.call(1, "ping"),
                                                headers: Self.headers(Self.producer) + [("Origin", "https://console.example")])
            #expect(allowed.status == 200)
        }
        try await LiveServer.with { server in
            let evil = try await server.send("POST", "/mcp", body: Self.ask(1, title: "Session expired"),
                                             headers: Self.headers(nil) + [("Origin", "http://evil.example")])
            _ = expectProblem(evil, 403, type: "urn:alertd:problem:origin-not-allowed")
            #expect(try await server.listIDs("state=all").isEmpty, "nothing was created")
        }
    }

    @Test("a responder-only token may not ask or create: the tool answers isError naming the role, and makes nothing")
    func responderCannotAsk() async throws {
        try await Self.withTokens { server in
            for body in [Self.ask(1, title: "Deploy?"),
                         Self.call(2, "tools/call", #"{"name":"create","arguments":{"title":"Deploy?"}}"#)] {
                let response = try await server.send("POST", "/mcp", body: body, headers: Self.headers(Self.responder))
                #expect(response.status == 200 && response.contentType == "application/json", "\(response)")
                #expect(response.json["result"]?["isError"] == .bool(true), "\(response)")
                let text = response.json["result"]?["content"]?[0]?["text"]?.stringValue ?? ""
                #expect(text.contains("responder role may not create alerts"), "\(text)")
            }
            let list = try await server.send("GET", "/v1/alerts?state=all",
                                             headers: [("Authorization", "Bearer \(Self.responder)")])
            #expect(list.json["alerts"]?.arrayValue?.isEmpty == true)
        }
    }

    @Test("malformed JSON-RPC gets the spec's error objects (400 for what is no message, 200 after), never a 5xx")
    func malformed() async throws {
        try await Self.withTokens { server in
            let cases: [(body: String, status: Int, code: Int64)] = [
                (#"{"jsonrpc":"2.0","id":1,"#, 400, -32700),
                ("", 400, -32700),
                (#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, 400, -32600),
                (#""ping""#, 400, -32600),
                (#"{"id":1,"method":"ping"}"#, 400, -32600),
                (#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#, 400, -32600),
                (#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}"#, 400, -32602),
                (Self.call(3, "tools/destroy"), 200, -32601),
                (Self.call(4, "tools/call", #"{"arguments":{}}"#), 200, -32602),
                (Self.call(5, "tools/call", #"{"name":"nope"}"#), 200, -32602),
                (Self.call(6, "initialize", #"{"protocolVersion":7}"#), 200, -32602),
            ]
            for (body, status, code) in cases {
                let response = try await server.send("POST", "/mcp", body: body, headers: Self.headers(Self.producer))
                #expect(response.status == status, "\(body): \(response)")
                #expect(response.contentType == "application/json", "\(body)")
                #expect(response.json["jsonrpc"] == .string("2.0"), "\(body)")
                #expect(response.json["error"]?["code"] == .integer(code), "\(body): \(response)")
                #expect(response.json["error"]?["message"]?.stringValue?.isEmpty == false, "\(body)")
            }
            let text = try await server.send("POST", "/mcp", body: Self.call(1, "ping"),
                                             headers: [("Content-Type", "text/plain"),
                                                       ("Authorization", "Bearer \(Self.producer)")])
            _ = expectProblem(text, 415, type: "urn:alertd:problem:unsupported-media-type")
            let html = try await server.send("POST", "/mcp", body: Self.call(1, "ping"),
                                             headers: Self.headers(Self.producer, accept: "text/html"))
            _ = expectProblem(html, 406, type: "urn:alertd:problem:not-acceptable")
            let version = try await server.send("POST", "/mcp", body: Self.call(1, "ping"),
                                                headers: Self.headers(Self.producer) + [("MCP-Protocol-Version", "1999-01-01")])
            _ = expectProblem(version, 400, type: "urn:alertd:problem:unsupported-protocol-version")
            for known in ["2025-06-18", "2025-11-25"] {
                let response = try await server.send("POST", "/mcp", body: Self.call(1, "ping"),
                                                     headers: Self.headers(Self.producer) + [("MCP-Protocol-Version", known)])
                #expect(response.status == 200, "\(known)")
            }
        }
    }

    @Test("a notification or a response from the client is 202 with no body")
    func accepted() async throws {
        try await Self.withTokens { server in
            for body in [#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                         #"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}"#,
                         #"{"jsonrpc":"2.0","id":5,"result":{}}"#] {
                let response = try await server.send("POST", "/mcp", body: body, headers: Self.headers(Self.producer))
                #expect(response.status == 202 && response.body.isEmpty, "\(body): \(response)")
            }
        }
    }

    /// A `ping` round trip: the server still answers, and what the request before it did has been done.
    static func expectServing(_ server: LiveServer, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let ping = try await server.send("POST", "/mcp", body: call(1, "ping"), headers: headers(producer))
        #expect(ping.status == 200, "\(ping)", sourceLocation: sourceLocation)
    }

    /// Starts a waiting `ask` on an event stream, as the producer.
    static func askStream(_ server: LiveServer, id: Int = 7, title: String) throws -> SSEClient {
        try SSEClient(port: server.port, target: "/mcp", method: "POST", body: Array(ask(id, title: title).utf8),
                      headers: headers(producer))
    }

    /// The id of the one pending alert, as the responder lists it.
    static func pendingID(_ server: LiveServer) async throws -> String {
        let list = try await server.send("GET", "/v1/alerts", headers: [("Authorization", "Bearer \(responder)")])
        return try #require(list.json["alerts"]?[0]?["id"]?.stringValue, "\(list)")
    }

    @Test("a waiting ask answers with an event stream: progress notifications, then the result once answered on REST")
    func progressThenResult() async throws {
        try await Self.withTokens { server in
            let stream = try Self.askStream(server, title: "Deploy?")
            let head = try await stream.head()
            #expect(head.status == 200 && head.headers["content-type"]?.hasPrefix("text/event-stream") == true)
            let progress = try #require(await stream.nextMessage())
            let notification = try JSONParser.parse(Array(progress.data.utf8))
            #expect(notification["method"] == .string("notifications/progress"))
            #expect(notification["params"]?["progressToken"] == .string("p7"))
            let id = try await Self.pendingID(server)
            let answer = try await server.send("POST", "/v1/alerts/\(id)/response", body: #"{"buttonIndex":0}"#,
                                               headers: [("Authorization", "Bearer \(Self.responder)")])
            #expect(answer.status == 200)
            let last = await stream.messages { $0.data.contains(#""id":7"#) }.last
            let response = try JSONParser.parse(Array((last?.data ?? "").utf8))
            #expect(response["result"]?["isError"] == .bool(false), "\(response)")
            #expect(String(decoding: JSONWriter.encode(response), as: UTF8.self).contains("alice"), "the responder")
            guard case .closed? = await stream.rest().last else { Issue.record("the stream did not end"); return }
        }
    }

    @Test("a client that accepts only application/json gets the result alone, as one body, after the wait")
    func jsonOnly() async throws {
        try await Self.withTokens { server in
            async let waited = server.send("POST", "/mcp", body: Self.ask(8, title: "JSON?"),
                                           headers: Self.headers(Self.producer, accept: "application/json"))
            await server.waitForWaiters(1)
            let id = try await Self.pendingID(server)
            _ = try await server.send("POST", "/v1/alerts/\(id)/response", body: #"{"buttonIndex":0}"#,
                                      headers: [("Authorization", "Bearer \(Self.responder)")])
            let response = try await waited
            #expect(response.status == 200 && response.contentType == "application/json", "\(response)")
            #expect(response.json["id"] == .integer(8) && response.json["result"]?["isError"] == .bool(false), "\(response)")
        }
    }

    @Test("a client that hangs up while ask waits ends the wait (the store holds no waiter) and the alert stays pending")
    func hangUpCancels() async throws {
        try await Self.withTokens { server in
            let stream = try Self.askStream(server, title: "Leaving")
            _ = try await stream.head()
            await server.waitForWaiters(1)
            let id = try await Self.pendingID(server)
            stream.disconnect()
            await server.waitForWaiters(0)
            try await Self.expectServing(server)
            // MCP does not take a disconnection for a cancellation: a retry with the idempotency key finds the alert.
            let alert = try await server.send("GET", "/v1/alerts/\(id)", headers: [("Authorization", "Bearer \(Self.responder)")])
            #expect(alert.json["state"] == .string("pending"), "\(alert)")
        }
    }

    @Test("notifications/cancelled stops the caller's own call; the same id from another token cancels nothing")
    func cancelledNotification() async throws {
        try await Self.withTokens({ $0.tokens = try! AccessTokens(
            parsing: Self.tokens + ",ci2:producer:other-producer-token-02", source: "test") }) { server in
            let stream = try Self.askStream(server, id: 9, title: "Cancel me")
            _ = try await stream.head()
            await server.waitForWaiters(1)
            let cancel = #"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}"#
            let foreign = try await server.send("POST", "/mcp", body: cancel,
                                                headers: Self.headers("other-producer-token-02"))
            #expect(foreign.status == 202)
            try await Self.expectServing(server)
            #expect(await server.app.waitForWaiters(1).held, "another token's cancel left the call waiting")
            let id = try await Self.pendingID(server)
            let own = try await server.send("POST", "/mcp", body: cancel, headers: Self.headers(Self.producer))
            #expect(own.status == 202)
            await server.waitForWaiters(0)
            let rest = await stream.rest()
            guard case .closed? = rest.last else { Issue.record("the stream did not end"); return }
            #expect(!rest.contains { if case .message(let m) = $0 { m.data.contains(#""id":9"#) } else { false } },
                    "a cancelled call sends no response")
            // A cancellation withdraws the alert, as over stdio.
            let result = try await server.send("GET", "/v1/alerts/\(id)/response",
                                               headers: [("Authorization", "Bearer \(Self.responder)")])
            #expect(result.json["resolution"] == .string("dismissed"), "\(result)")
        }
    }
}
