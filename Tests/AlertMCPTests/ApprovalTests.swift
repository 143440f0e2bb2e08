import AlertMCP
import JSON
import Testing

@Suite("approve: Claude Code's permission prompt tool, and the approval alert's shape")
struct ApprovalTests {
    static let bash = #"{"tool_name":"Bash","input":{"command":"rm -rf build","description":"Clean"},"tool_use_id":"toolu_01"}"#

    @Test("the alert: Allow <tool>?, the input pretty-printed with sorted keys, Deny (cancel) and Allow, a Reason field")
    func alertShape() async throws {
        let client = Client()
        async let result = client.call("approve", Self.bash)
        try #require(await client.backend.waitForAlerts(1))
        let draft = try #require(await client.backend.draft("a1"))
        #expect(draft.title == "Allow Bash?")
        #expect(draft.message == "{\n  \"command\": \"rm -rf build\",\n  \"description\": \"Clean\"\n}")
        #expect(draft.buttons == [.init(title: "Deny", style: "cancel"), .init(title: "Allow")])
        #expect(draft.fields == [.init(placeholder: "Reason (optional)")])
        await client.backend.answer("a1", button: 1, values: [""])
        _ = await result
    }

    @Test("allow returns exactly {behavior: allow, updatedInput: the input}")
    func allow() async throws {
        let client = Client()
        async let result = client.call("approve", Self.bash)
        try #require(await client.backend.waitForAlerts(1))
        await client.backend.answer("a1", button: 1, values: [""])
        let answer = try #require(await result)
        #expect(answer.text == #"{"behavior":"allow","updatedInput":{"command":"rm -rf build","description":"Clean"}}"#)
        #expect(!answer.isError)
    }

    @Test("deny says who and why: Denied by <responder>: <reason>")
    func deny() async throws {
        let client = Client()
        async let result = client.call("approve", Self.bash)
        try #require(await client.backend.waitForAlerts(1))
        await client.backend.answer("a1", button: 0, values: ["  not on Fridays "], responder: "bob")
        #expect(await result?.text == #"{"behavior":"deny","message":"Denied by bob: not on Fridays"}"#)
    }

    @Test("deny without a reason: Denied by <responder>")
    func denyWithoutReason() async throws {
        let client = Client()
        async let result = client.call("approve", Self.bash)
        try #require(await client.backend.waitForAlerts(1))
        await client.backend.answer("a1", button: 0, values: [""], responder: "bob")
        #expect(await result?.text == #"{"behavior":"deny","message":"Denied by bob"}"#)
    }

    @Test("a repeated tool_use_id makes no second alert and returns the first answer")
    func repeated() async throws {
        let client = Client()
        async let first = client.call("approve", Self.bash)
        try #require(await client.backend.waitForAlerts(1))
        await client.backend.answer("a1", button: 1, values: [""])
        _ = await first
        let second = try #require(await client.call("approve", Self.bash, id: 2))
        #expect(second.structured?["behavior"] == .string("allow"))
        #expect(await client.backend.count == 1)
    }

    @Test("expiry, dismissal and an unreachable alertd deny and say which")
    func failClosed() async throws {
        let client = Client()
        async let expired = client.call("approve", #"{"tool_name":"Bash","input":{}}"#)
        try #require(await client.backend.waitForAlerts(1))
        await client.backend.expire("a1")
        #expect(await expired?.structured?["message"] == .string("Denied: the approval request expired unanswered"))

        async let dismissed = client.call("approve", #"{"tool_name":"Bash","input":{"a":1}}"#)
        try #require(await client.backend.waitForAlerts(2))
        _ = try await client.backend.dismiss("a2")
        #expect(await dismissed?.structured?["message"] == .string("Denied: the approval request was dismissed"))

        await client.backend.setFailure(AlertBackendError(.unreachable, "connection refused"))
        let unreachable = try #require(await client.call("approve", Self.bash))
        #expect(unreachable.structured?["behavior"] == .string("deny"))
        #expect(unreachable.structured?["message"]?.stringValue?.contains("could not be reached") == true)
    }

    @Test("a bad request denies rather than failing open")
    func badRequest() async throws {
        let result = try #require(await Client().call("approve", #"{"input":{}}"#))
        #expect(result.structured?["behavior"] == .string("deny"))
    }

    @Test("an input beyond the message limit is cut with a visible line, context lines kept whole")
    func cut() {
        let input = JSONValue.object(["command": .string(String(repeating: "x", count: 5000))])
        let message = Approval.message(input: input, context: ["Session: s1", "Directory: /tmp"])
        #expect(message.count <= Approval.messageLimit)
        #expect(message.hasSuffix("\n\nSession: s1\nDirectory: /tmp"))
        let whole = PrettyJSON.render(input)
        let lines = message.split(separator: "\n", omittingEmptySubsequences: false)
        let cutLine = try! #require(lines.firstIndex { $0.hasPrefix("… (cut, ") })
        let kept = lines[..<cutLine].joined(separator: "\n")
        #expect(message.contains("\n… (cut, \(whole.utf8.count - kept.utf8.count) more bytes)\n\nSession"))
        #expect(whole.hasPrefix(kept))
    }

    @Test("pretty JSON: 2-space indent, sorted keys, empty containers inline")
    func pretty() {
        let value = json(#"{"b":[1,{"d":null,"c":true}],"a":{},"e":[]}"#)
        #expect(PrettyJSON.render(value) == """
            {
              "a": {},
              "b": [
                1,
                {
                  "c": true,
                  "d": null
                }
              ],
              "e": []
            }
            """)
    }
}
