import AlertMCP
import JSON
import Testing

@Suite("JSON-RPC framing and the MCP handshake")
struct JSONRPCTests {
    func error(_ reply: JSONValue?) -> (code: Int64?, message: String?, id: JSONValue?) {
        let object = reply?.objectValue
        let error = object?["error"]?.objectValue
        return (error?["code"]?.int64Value, error?["message"]?.stringValue, object?["id"])
    }

    @Test("text that is not JSON is a parse error with a null id")
    func parseError() async {
        let reply = await Client().send("{nope")
        #expect(error(reply).code == -32700)
        #expect(error(reply).id == .null)
    }

    @Test("a batch, a missing jsonrpc member and a null id are invalid requests")
    func invalidRequests() async {
        let client = Client()
        #expect(error(await client.send(#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#)).code == -32600)
        #expect(error(await client.send(#"{"id":7,"method":"ping"}"#)).code == -32600)
        #expect(error(await client.send(#"{"id":7,"method":"ping"}"#)).id == .integer(7))
        #expect(error(await client.send(#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#)).code == -32600)
        #expect(error(await client.send(#"{"jsonrpc":"2.0","id":1}"#)).code == -32600)
        #expect(error(await client.send(#""ping""#)).code == -32600)
    }

    @Test("an unknown method is -32601; params that are not an object are -32602 naming params")
    func unknownMethodAndParams() async {
        let client = Client()
        let unknown = error(await client.send(#"{"jsonrpc":"2.0","id":"x","method":"resources/list"}"#))
        #expect(unknown.code == -32601)
        #expect(unknown.id == .string("x"))
        let reply = await client.send(#"{"jsonrpc":"2.0","id":2,"method":"ping","params":[1]}"#)
        #expect(error(reply).code == -32602)
        #expect(reply?.objectValue?["error"]?.objectValue?["data"]?.objectValue?["argument"] == .string("params"))
    }

    @Test("notifications and responses get no reply; ping answers {}")
    func notificationsAndPing() async {
        let client = Client()
        #expect(await client.send(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#) == nil)
        #expect(await client.send(#"{"jsonrpc":"2.0","method":"notifications/whatever","params":{}}"#) == nil)
        #expect(await client.send(#"{"jsonrpc":"2.0","id":5,"result":{}}"#) == nil)
        #expect(await client.send(#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#) == json(#"{"jsonrpc":"2.0","id":5,"result":{}}"#))
    }

    @Test("initialize answers the client's version when supported, else the newest", arguments: [
        ("2025-06-18", "2025-06-18"), ("2025-11-25", "2025-11-25"), ("2024-11-05", "2025-11-25"), ("2099-01-01", "2025-11-25"),
    ])
    func negotiation(asked: String, agreed: String) async {
        let client = Client()
        let reply = await client.send(
            #"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"\#(asked)","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#
        )
        let result = reply?.objectValue?["result"]?.objectValue
        #expect(result?["protocolVersion"] == .string(agreed))
        #expect(result?["capabilities"]?.objectValue?["tools"] != nil)
        #expect(result?["serverInfo"]?.objectValue?["version"] == .string("test"))
        #expect(client.server.negotiatedVersion == agreed)
    }

    @Test("initialize without a protocolVersion is -32602 naming it")
    func initializeWithoutVersion() async {
        let reply = await Client().send(#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#)
        #expect(error(reply).code == -32602)
        #expect(error(reply).message?.contains("protocolVersion") == true)
    }

    @Test("tools/call of an unknown tool or without a name is -32602")
    func callErrors() async {
        let client = Client()
        let unknown = error(await client.send(#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}}"#))
        #expect(unknown.code == -32602)
        #expect(unknown.message == "Unknown tool: nope")
        let nameless = error(await client.send(#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}"#))
        #expect(nameless.code == -32602)
        #expect(nameless.message?.contains("name") == true)
        let badArguments = error(await client.send(#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list","arguments":3}}"#))
        #expect(badArguments.code == -32602)
    }

    @Test("tools/list lists the seven tools, each with object schemas, a title and annotations")
    func toolsList() async {
        let reply = await Client().send(#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
        let tools = reply?.objectValue?["result"]?.objectValue?["tools"]?.arrayValue ?? []
        #expect(tools.compactMap { $0.objectValue?["name"]?.stringValue } == ["ask", "create", "wait", "get", "dismiss", "list", "approve"])
        for tool in tools.compactMap(\.objectValue) {
            #expect(tool["inputSchema"]?.objectValue?["type"] == .string("object"))
            #expect(tool["outputSchema"]?.objectValue?["type"] == .string("object"))
            #expect(tool["annotations"]?.objectValue?["readOnlyHint"] != nil)
            #expect(tool["title"]?.stringValue?.isEmpty == false)
        }
    }

    @Test("server/discover lists every revision; a 2026-07-28 request is answered with resultType and caching members")
    func stateless() async throws {
        let client = Client()
        let discover = try #require(await client.send(
            #"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#
        )?.objectValue?["result"]?.objectValue)
        #expect(discover["supportedVersions"] == json(#"["2025-11-25","2025-06-18","2026-07-28"]"#))
        #expect(discover["resultType"] == .string("complete"))
        #expect(discover["_meta"]?.objectValue?["io.modelcontextprotocol/serverInfo"]?.objectValue?["name"] == .string("alertd"))
        let list = try #require(await client.send(
            #"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#
        )?.objectValue?["result"]?.objectValue)
        #expect(list["ttlMs"] == .integer(0))
        #expect(list["cacheScope"] == .string("private"))
        #expect(list["tools"]?.arrayValue?.count == 7)
        let handshake = try #require(await client.send(#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#)?.objectValue?["result"]?.objectValue)
        #expect(handshake["resultType"] == nil)
    }

    @Test("a request naming an unknown version in _meta is -32022 with the supported versions")
    func unsupportedVersion() async throws {
        let reply = await Client().send(
            #"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}}"#
        )
        #expect(error(reply).code == -32022)
        let data = reply?.objectValue?["error"]?.objectValue?["data"]?.objectValue
        #expect(data?["requested"] == .string("2099-01-01"))
        #expect(data?["supported"]?.arrayValue?.contains(.string("2026-07-28")) == true)
    }
}
