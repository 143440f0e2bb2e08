import AlertCore
import AlertMCP
import JSON
import MicroHTTP

/// `POST /mcp`: MCP's Streamable HTTP transport (docs/AGENTS.md, "Over HTTP"). One JSON-RPC message per POST, no
/// sessions: a request is answered with one `application/json` body, or with a `text/event-stream` when the call
/// waits (progress notifications, then the response); a notification or a response from the client gets 202.
///
/// The HTTP rules come first and are problems like on every route: the token (401) and its role (403, a monitor
/// token), the `Origin` (403: the spec's defence against DNS rebinding, checked here with tokens too), the body's
/// type (415), what the client accepts (406), the `MCP-Protocol-Version` header (400). Then JSON-RPC's rules: a body
/// that is not JSON or not a JSON-RPC message is 400 with the spec's error object; everything after that is 200 with
/// a result or an error object, a tool's refusal (a responder may not `ask`) a result with `isError`.
extension APIHandler {
    /// The MCP protocol revisions a client may name in `MCP-Protocol-Version`; without the header the spec has the
    /// server assume 2025-03-26, which alertd serves as it serves 2025-06-18. 2026-07-28 is the stateless revision
    /// (`server/discover`, no `initialize`).
    static let mcpHeaderVersions: Set<String> = ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]

    func mcp(_ route: RouteRequest) throws(Problem) -> HTTPReply {
        let request = route.request
        try mcpOrigin(request.headers)
        try Self.mcpContentType(request.headers["content-type"])
        let media = try Self.mcpMedia(request.headers["accept"])
        if let version = request.headers["mcp-protocol-version"], !Self.mcpHeaderVersions.contains(version) {
            throw .alertd(400, "unsupported-protocol-version", "Unsupported MCP protocol version", detail: """
                MCP-Protocol-Version '\(version.prefix(64))' is not one alertd speaks; it speaks \
                \(Self.mcpHeaderVersions.sorted().joined(separator: ", "))
                """)
        }
        let message: JSONRPC.Message
        do {
            message = try JSONRPC.parse(request.body)
        } catch {
            // Not JSON, or not a JSON-RPC message: the spec's error object, with the HTTP error it asks for.
            return .response(.json(400, JSONRPC.error(error)))
        }
        let endpoint = mcp
        let client = MCPEndpoint.clientKey(route.caller, address: request.clientAddress)
        switch message {
        case .notification(let method, let params):
            if method == "notifications/cancelled", let id = params["requestId"].flatMap(JSONRPC.ID.init) {
                endpoint.cancel(client, id: id)
            }
            return .response(HTTPResponse(status: 202))
        case .response:
            // alertd sends no requests to clients, so no response is awaited: accepted and dropped.
            return .response(HTTPResponse(status: 202))
        case .request(let id, let method, let params):
            let (store, caller, webhooks) = (self.store, route.caller, self.webhooks)
            // Up to 2025-11-25 a lost connection is no cancellation (the client sends notifications/cancelled);
            // in the stateless 2026-07-28 revision closing the response stream is the cancellation.
            let meta = params["_meta"]?.objectValue?[MCPServer.versionMetaKey]?.stringValue
            let stateless = [request.headers["mcp-protocol-version"], meta].contains {
                $0.map(MCPServer.statelessVersions.contains) ?? false
            }
            let answered = HTTPReply.suspended { responder in
                let call = MCPCall(responder, media: media, hangUpCancels: stateless)
                let registered = endpoint.add(call, client, id: id)
                let backend = StoreBackend(store: store, caller: caller, webhooks: webhooks,
                                           keepsAlert: { call.keepsAlert })
                call.start(MCPCall.Carrier(backend: backend, endpoint: endpoint, client: client, id: id,
                                           registered: registered)) { call in
                    await endpoint.server.start(message, backend: backend, emit: call.notify)
                }
            }
            // A tool call may wait for a person: it holds one of the client's waits, as a long-poll does.
            return try waiting(answered, if: method == "tools/call", for: request, as: route.caller)
        }
    }

    /// With tokens, `BrowserGuard` is off (a page has no token to send), but MCP's spec asks every server to refuse
    /// an `Origin` it does not know: a page's request carries one, an agent's does not.
    private func mcpOrigin(_ headers: HTTPHeaders) throws(Problem) {
        guard browsers == nil, let origin = headers["origin"], !mcp.origins.contains(BrowserGuard.normalizedOrigin(origin)) else {
            return
        }
        throw .alertd(403, "origin-not-allowed", "Origin not allowed", detail: """
            MCP requests from web pages are refused: Origin '\(origin.prefix(256))' is not allowed (allow an origin \
            with --allow-origin)
            """)
    }

    /// - Throws: `Problem` 415 unless the body is `application/json`.
    static func mcpContentType(_ value: String?) throws(Problem) {
        let type = value?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard type != "application/json" else { return }
        var problem = Problem.alertd(415, "unsupported-media-type", "Unsupported Media Type", detail: """
            POST /mcp takes one JSON-RPC message as 'Content-Type: application/json'; got \
            \(value.map { "'\($0.prefix(128))'" } ?? "no Content-Type")
            """)
        problem.headers.add("Accept-Post", "application/json")
        throw problem
    }

    /// What the client accepts of the two ways a call is answered.
    /// - Throws: `Problem` 406 when it accepts neither `application/json` nor `text/event-stream`.
    static func mcpMedia(_ value: String?) throws(Problem) -> MCPCall.Media {
        let accept = AcceptHeader(value)
        let media = MCPCall.Media(json: accept.quality(of: "application/json") > 0,
                                  eventStream: accept.quality(of: "text/event-stream") > 0)
        guard media.json || media.eventStream else {
            throw .alertd(406, "not-acceptable", "Not Acceptable", detail: """
                POST /mcp answers application/json or text/event-stream; send 'Accept: application/json, \
                text/event-stream'
                """)
        }
        return media
    }
}
