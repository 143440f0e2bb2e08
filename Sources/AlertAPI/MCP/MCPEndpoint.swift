import AlertCore
import AlertMCP
import Locking

/// How `POST /mcp` answers: alertd's flags for it.
public struct MCPOptions: Sendable {
    /// Return the secure values a person typed to the agent that asked, when its token may see them on REST
    /// (`--mcp-reveal-secure`; off: the agent gets a marker, since a value it gets enters its model's context).
    public var revealSecure = false
    /// How often a waiting call sends a progress notification (`--mcp-progress-interval`).
    public var progressInterval: Duration = .seconds(10)
    /// How long an `approve` alert waits before it expires, which denies (`--mcp-approval-timeout`); nil: no bound.
    public var approvalTimeout: Duration?

    public init() {}
}

/// What `POST /mcp` keeps across requests: the MCP server (one for every caller: each message gets its caller's
/// `StoreBackend`), the calls in progress, and the origins served with tokens.
///
/// The calls are kept by client and JSON-RPC id, so that a `notifications/cancelled` POSTed separately finds the call
/// it names. Without sessions, a client is its token's name (else its address), as for `ClientWaits`: one client
/// cannot cancel another's calls. The server's own table of calls is not used: ids are only unique per client.
final class MCPEndpoint: Sendable {
    let server: MCPServer
    /// With tokens, the `Origin`s served (`--allow-origin`, as `BrowserGuard` compares them); without, the guard
    /// checks every route.
    let origins: Set<String>
    /// The calls in progress, and whether the progress timer runs (it does while there are calls).
    private let calls = Lock<(byKey: [String: MCPCall], ticking: Bool)>(([:], false))
    /// How often a waiting call sends a progress notification (`--mcp-progress-interval`).
    let progressInterval: Duration

    init(store: AlertStore, options: MCPOptions, version: String, origins: [String]) {
        // Each message names its backend; this one, a monitor's, may do nothing.
        let idle = StoreBackend(store: store, caller: Caller(name: nil, role: .monitor), webhooks: .external)
        server = MCPServer(backend: idle, options: MCPServer.Options(
            version: version, revealSecure: options.revealSecure, progressInterval: options.progressInterval,
            approvalTimeout: options.approvalTimeout.map { Double($0.components.seconds) }))
        self.origins = BrowserGuard.origins(origins)
        progressInterval = max(options.progressInterval, .milliseconds(10))
    }

    /// Registers `call`; false when the client has a call with that id in progress already (then the newer one
    /// cannot be cancelled by id, only by hanging up, and gets no progress notifications).
    func add(_ call: MCPCall, _ client: String, id: JSONRPC.ID) -> Bool {
        let key = Self.key(client, id)
        let (added, start) = calls.withLock { calls -> (Bool, Bool) in
            guard calls.byKey[key] == nil else { return (false, false) }
            calls.byKey[key] = call
            defer { calls.ticking = true }
            return (true, !calls.ticking)
        }
        if start { Task { await tick() } }
        return added
    }

    func remove(_ client: String, id: JSONRPC.ID) {
        let key = Self.key(client, id)
        _ = calls.withLock { $0.byKey.removeValue(forKey: key) }
    }

    /// Ends the wait of the client's call `id`, if it is in progress.
    func cancel(_ client: String, id: JSONRPC.ID) {
        let key = Self.key(client, id)
        calls.withLock { $0.byKey[key] }?.cancel()
    }

    /// The progress notifications of every waiting call: one timer task while there are calls, not a task (or a
    /// timer) per call. It ticks every half interval (at most every second); each call sends when its time has come
    /// (`MCPCall.tick`), so a notification is at most a tick late.
    private func tick() async {
        let period = min(progressInterval / 2, .seconds(1))
        while true {
            try? await Task.sleep(for: period)
            let now = ContinuousClock.now
            let waiting = calls.withLock { calls -> [MCPCall]? in
                guard !calls.byKey.isEmpty else {
                    calls.ticking = false
                    return nil
                }
                return Array(calls.byKey.values)
            }
            guard let waiting else { return }
            for call in waiting { call.tick(now, every: progressInterval) }
        }
    }

    /// The key of a client's calls: as `ClientWaits.key`, or `-` when neither token nor address is known.
    static func clientKey(_ caller: Caller, address: String?) -> String {
        ClientWaits.key(caller: caller, address: address) ?? "-"
    }

    /// A JSON-RPC id as text; `1` and `"1"` stay apart.
    private static func key(_ client: String, _ id: JSONRPC.ID) -> String {
        client + " " + id.description
    }
}
