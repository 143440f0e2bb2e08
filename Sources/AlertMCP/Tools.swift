import JSON

/// What a tool's run gets: the caller's backend, the server's options and the request's progress channel.
struct ToolContext: Sendable {
    let backend: any AlertBackend
    let options: MCPServer.Options
    let progress: Progress
}

/// One tool: its listing (name, schemas, annotations) and its run, which comes to a whole `CallToolResult`, at once or
/// after a wait for a person that the transport carries out (`ToolStep`).
struct Tool: Sendable {
    let name: String
    let listing: JSONValue
    let run: @Sendable (JSONObject, ToolContext) async -> ToolStep<JSONValue>

    init(
        name: String, title: String, description: String, input: String, output: String, annotations: JSONObject,
        run: @escaping @Sendable (JSONObject, ToolContext) async -> ToolStep<JSONValue>
    ) {
        self.name = name
        self.run = run
        listing = .object([
            "name": .string(name),
            "title": .string(title),
            "description": .string(description),
            "inputSchema": Schema.parse(input),
            "outputSchema": Schema.parse(output),
            "annotations": .object(JSONObject(
                [("title", .string(title))] + annotations.members.map { ($0.key, $0.value) }
            )),
        ])
    }
}

/// The tools, in the order `tools/list` gives them.
enum Tools {
    static let all: [Tool] = [ask, create, wait, get, dismiss, list, approve]

    static func named(_ name: String) -> Tool? { all.first { $0.name == name } }

    static let instructions = """
        alertd puts questions to a person and returns their answer. Use `ask` when you need a decision or a value \
        only a person has: it waits until they answer (or the alert's timeout passes). `create` then `wait` does the \
        same in steps. `approve` is Claude Code's permission prompt tool. Values of secure fields are withheld.
        """

    private static func hints(readOnly: Bool, destructive: Bool = false, idempotent: Bool) -> JSONObject {
        [
            "readOnlyHint": .bool(readOnly), "destructiveHint": .bool(destructive),
            "idempotentHint": .bool(idempotent), "openWorldHint": .bool(true),
        ]
    }

    static let ask = Tool(
        name: "ask", title: "Ask a person",
        description: """
            Puts a question to a person through alertd (title, message, buttons, text fields) and waits for the \
            answer: which button they chose, what they typed, who answered. The cancel button is index 0. Waits until \
            answered, or until `timeout` seconds pass (resolution "expired"). Secure fields' values are withheld.
            """,
        input: Schema.draftInput, output: Schema.answer, annotations: hints(readOnly: false, idempotent: false),
        run: AlertTools.ask
    )

    static let create = Tool(
        name: "create", title: "Create an alert",
        description: "Creates an alert without waiting; returns it with its id. Wait for its answer with `wait`.",
        input: Schema.draftInput, output: Schema.alert, annotations: hints(readOnly: false, idempotent: false),
        run: { .done(await AlertTools.create($0, $1)) }
    )

    static let wait = Tool(
        name: "wait", title: "Wait for an answer",
        description: """
            Waits up to `seconds` (default 60, at most 3600) for an alert's answer. state "resolved" carries the \
            result; "pending" means nobody has answered yet: call again.
            """,
        input: Schema.waitInput, output: Schema.waitOutput, annotations: hints(readOnly: true, idempotent: true),
        run: AlertTools.wait
    )

    static let get = Tool(
        name: "get", title: "Read an alert",
        description: "The alert with this id as it is now, with its result once resolved.",
        input: Schema.idInput, output: Schema.alert, annotations: hints(readOnly: true, idempotent: true),
        run: { .done(await AlertTools.get($0, $1)) }
    )

    static let dismiss = Tool(
        name: "dismiss", title: "Withdraw an alert",
        description: """
            Withdraws a pending alert: it resolves as its cancel button with resolution "dismissed". An alert \
            already resolved keeps its result (alreadyResolved true).
            """,
        input: Schema.idInput, output: Schema.dismissOutput,
        annotations: hints(readOnly: false, destructive: true, idempotent: true),
        run: { .done(await AlertTools.dismiss($0, $1)) }
    )

    static let list = Tool(
        name: "list", title: "List pending alerts",
        description: "Your own pending alerts, oldest first (at most `limit`, default 100).",
        input: Schema.listInput, output: Schema.listOutput, annotations: hints(readOnly: true, idempotent: true),
        run: { .done(await AlertTools.list($0, $1)) }
    )

    static let approve = Tool(
        name: "approve", title: "Approve a tool call",
        description: """
            Claude Code's permission prompt tool (--permission-prompt-tool): asks a person whether `tool_name` may run \
            with `input`. Returns {"behavior":"allow","updatedInput":…} or {"behavior":"deny","message":…}; an \
            expiry, a dismissal or an unreachable alertd denies.
            """,
        input: Schema.approveInput, output: Schema.approveOutput,
        annotations: hints(readOnly: false, idempotent: true),
        run: ApprovalTool.run
    )
}
