import JSON

/// `approve`: Claude Code's `--permission-prompt-tool` contract. Input `{tool_name, input, tool_use_id?}`; one text
/// block holding exactly `{"behavior":"allow","updatedInput":<input>}` or `{"behavior":"deny","message":"…"}`.
/// It fails closed: a bad input, an expiry, a dismissal and an unreachable alertd all deny, saying which.
enum ApprovalTool {
    @Sendable static func run(_ arguments: JSONObject, _ context: ToolContext) async -> ToolStep<JSONValue> {
        // Claude Code may add members: only these three are read, none refused.
        guard case .string(let toolName)? = arguments["tool_name"], !toolName.isEmpty else {
            return .done(deny("Denied: the request named no tool (tool_name must be a non-empty string)"))
        }
        guard case .object(let input)? = arguments["input"] else {
            return .done(deny("Denied: the request for \(toolName) carried no input object"))
        }
        let request = ApprovalRequest(
            toolName: toolName, input: input, toolUseID: arguments["tool_use_id"]?.stringValue
        )
        return await request.decide(context: context, draft: Approval.draft(
            toolName: toolName, input: .object(input), timeout: context.options.approvalTimeout
        )).map { decision in
            switch decision {
            case .allow?:
                allow(input)
            case .deny(let message)?, .undecided(let message, _)?:
                deny(message)
            case nil:
                deny("Denied: cancelled")
            }
        }
    }

    static func allow(_ input: JSONObject) -> JSONValue {
        ToolResult.success(["behavior": .string("allow"), "updatedInput": .object(input)])
    }

    static func deny(_ message: String) -> JSONValue {
        ToolResult.success(["behavior": .string("deny"), "message": .string(message)])
    }
}

/// One approval: creates the alert (the tool call's id as its idempotency key) and waits for its decision.
/// Shared by `approve` and `alertctl hook claude-code`.
public struct ApprovalRequest: Sendable {
    public var toolName: String
    public var input: JSONObject
    /// The tool call's id; a valid one is the alert's idempotency key, so asking again makes no second alert.
    public var toolUseID: String?

    public init(toolName: String, input: JSONObject, toolUseID: String?) {
        self.toolName = toolName
        self.input = input
        self.toolUseID = toolUseID
    }

    /// `toolUseID` when alertd accepts it as an `Idempotency-Key` (1 to 255 visible ASCII characters).
    public var idempotencyKey: String? {
        guard let toolUseID, !toolUseID.isEmpty, toolUseID.utf8.count <= 255,
            toolUseID.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else { return nil }
        return toolUseID
    }

    /// Creates the alert and waits (until `deadline`, `nil` for no bound) for the person's decision.
    ///
    /// - Returns: the decision; an unreachable alertd and an error are `.undecided` with resolution `unreachable`
    ///   or `failed`, a deadline that passed is `.undecided` with resolution `pending`; `nil` when cancelled.
    public func decide(
        backend: any AlertBackend, draft: AlertDraftInput, until deadline: ContinuousClock.Instant? = nil,
        dismissOnCancel: Bool = true
    ) async -> Approval.Decision? {
        let context = ToolContext(
            backend: backend, options: MCPServer.Options(dismissOnCancel: dismissOnCancel),
            progress: Progress(token: nil, emit: { _ in })
        )
        return await decide(context: context, draft: draft, until: deadline).carriedOut()
    }

    /// Creates the alert, then the wait for its decision, which the transport carries out.
    func decide(
        context: ToolContext, draft: AlertDraftInput, until deadline: ContinuousClock.Instant? = nil
    ) async -> ToolStep<Approval.Decision?> {
        let alert: AlertSnapshot
        do {
            alert = try await context.backend.create(draft, idempotencyKey: idempotencyKey)
        } catch {
            return .done(Self.failure(error, doing: "asking"))
        }
        let (id, withdraw) = (alert.id, context.withdrawal)
        return await context.waiting(for: alert, until: deadline) { waited in
            switch waited {
            case .success(let outcome?):
                return Approval.decision(outcome)
            case .success(nil):
                return .undecided(message: "Denied: no answer came in time", resolution: "pending")
            case .failure(let error) where error.kind == .cancelled:
                await withdraw(id)
                return nil
            case .failure(let error):
                return Self.failure(error, doing: "waiting for the answer to alert \(id)")
            }
        }
    }

    static func failure(_ error: AlertBackendError, doing: String) -> Approval.Decision? {
        switch error.kind {
        case .cancelled:
            nil
        case .unreachable:
            .undecided(
                message: "Denied: alertd could not be reached while \(doing) (\(error.reason))",
                resolution: "unreachable"
            )
        default:
            .undecided(message: "Denied: alertd failed while \(doing) (\(error.reason))", resolution: "failed")
        }
    }
}
