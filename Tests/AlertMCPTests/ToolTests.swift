import AlertMCP
import JSON
import Testing

@Suite("The tools over an in-memory backend")
struct ToolTests {
    static let login = #"{"title":"Login","buttons":["Cancel","Log in"],"fields":[{"placeholder":"User"},{"placeholder":"Password","secure":true}]}"#

    @Test("ask waits for the answer and returns it as structuredContent and as the same JSON text")
    func askAnswered() async throws {
        let client = Client()
        async let result = client.call("ask", Self.login)
        try #require(await client.backend.waitForAlerts(1))
        await client.backend.answer("a1", button: 1, values: ["alice", "s3cret"])
        let answer = try #require(await result)
        let structured = try #require(answer.structured)
        #expect(!answer.isError)
        #expect(structured["alertId"] == .string("a1"))
        #expect(structured["buttonTitle"] == .string("Log in"))
        #expect(structured["responder"] == .string("alice"))
        #expect(structured["values"] == .array([.string("alice"), .string(MCPServer.secureMarker)]))
        #expect(json(try #require(answer.text)) == .object(structured))
    }

    @Test("with revealSecure the secure value comes back")
    func askRevealed() async throws {
        let client = Client(options: MCPServer.Options(revealSecure: true))
        async let result = client.call("ask", Self.login)
        try #require(await client.backend.waitForAlerts(1))
        await client.backend.answer("a1", button: 1, values: ["alice", "s3cret"])
        let structured = try #require(await result?.structured)
        #expect(structured["values"] == .array([.string("alice"), .string("s3cret")]))
    }

    @Test("a waiting ask with a progressToken sends increasing progress notifications")
    func progress() async throws {
        let client = Client(options: MCPServer.Options(progressInterval: .milliseconds(20)))
        async let result = client.call("ask", #"{"message":"Deploy?"}"#, progressToken: "p1")
        try #require(await client.backend.waitForAlerts(1))
        let deadline = ContinuousClock.now + .seconds(10)
        while client.notifications.count < 3, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        await client.backend.answer("a1", button: 0)
        _ = await result
        let params = client.notifications.compactMap { $0.objectValue?["params"]?.objectValue }
        #expect(params.count >= 3)
        #expect(client.notifications.allSatisfy { $0.objectValue?["method"] == .string("notifications/progress") })
        #expect(params.allSatisfy { $0["progressToken"] == .string("p1") })
        let counts = params.compactMap { $0["progress"]?.int64Value }
        #expect(counts == Array(stride(from: 1, through: Int64(counts.count), by: 1)))
    }

    @Test("notifications/cancelled stops a waiting ask at once: no reply, and the alert is withdrawn")
    func cancelled() async throws {
        let client = Client()
        async let reply = client.send(#"{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"ask","arguments":{"message":"Wait"}}}"#)
        try #require(await client.backend.waitForAlerts(1))
        #expect(await client.send(#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1","reason":"user"}}"#) == nil)
        #expect(await reply == nil)
        #expect(await client.backend.outcome("a1")?.resolution == "dismissed")
    }

    @Test("a closing transport (cancelAll) still gets each reply: the waiting ask's says cancelled, and its alert is withdrawn")
    func closing() async throws {
        let client = Client()
        async let reply = client.send(#"{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"ask","arguments":{"message":"Wait"}}}"#)
        try #require(await client.backend.waitForAlerts(1))
        client.server.cancelAll()
        let answer = try #require(await reply)
        #expect(answer.objectValue?["id"] == .string("c1"))
        #expect(answer.objectValue?["result"]?.objectValue?["isError"] == .bool(true))
        #expect(await client.backend.outcome("a1")?.resolution == "dismissed")
    }

    @Test("an expired ask returns resolution expired")
    func expired() async throws {
        let client = Client()
        async let result = client.call("ask", #"{"message":"Soon","timeout":1}"#)
        try #require(await client.backend.waitForAlerts(1))
        await client.backend.expire("a1")
        #expect(try #require(await result?.structured)["resolution"] == .string("expired"))
    }

    @Test("a wrong argument is isError naming it by JSON pointer")
    func badArgument() async throws {
        let client = Client()
        let result = try #require(await client.call("ask", #"{"title":"x","buttons":[{"title":"A","style":"loud"}]}"#))
        #expect(result.isError)
        #expect(result.text?.contains("/buttons/0/style") == true)
        let typo = try #require(await client.call("create", #"{"titel":"x"}"#))
        #expect(typo.isError)
        #expect(typo.text?.contains("/titel") == true)
        #expect(await client.backend.count == 0)
    }

    @Test("create, wait (pending, then resolved), get, list and dismiss")
    func stepByStep() async throws {
        let client = Client()
        let created = try #require(await client.call("create", #"{"message":"One","buttons":["No","Yes"],"idempotencyKey":"k1"}"#)?.structured)
        #expect(created["state"] == .string("pending"))
        let again = try #require(await client.call("create", #"{"message":"One","buttons":["No","Yes"],"idempotencyKey":"k1"}"#)?.structured)
        #expect(again["id"] == created["id"])
        let pending = try #require(await client.call("wait", #"{"id":"a1","seconds":0.05}"#)?.structured)
        #expect(pending["state"] == .string("pending"))
        #expect(pending["result"] == .null)
        await client.backend.answer("a1", button: 1)
        let resolved = try #require(await client.call("wait", #"{"id":"a1"}"#)?.structured)
        #expect(resolved["result"]?.objectValue?["buttonTitle"] == .string("Yes"))
        #expect(try #require(await client.call("get", #"{"id":"a1"}"#)?.structured)["state"] == .string("resolved"))
        _ = await client.call("create", #"{"message":"Two"}"#)
        let listed = try #require(await client.call("list", "{}")?.structured)
        #expect(listed["alerts"]?.arrayValue?.count == 1)
        let dismissed = try #require(await client.call("dismiss", #"{"id":"a2"}"#)?.structured)
        #expect(dismissed["alreadyResolved"] == .bool(false))
        #expect(dismissed["result"]?.objectValue?["resolution"] == .string("dismissed"))
        let twice = try #require(await client.call("dismiss", #"{"id":"a1"}"#)?.structured)
        #expect(twice["alreadyResolved"] == .bool(true))
        let missing = try #require(await client.call("get", #"{"id":"zz"}"#))
        #expect(missing.isError)
    }
}
