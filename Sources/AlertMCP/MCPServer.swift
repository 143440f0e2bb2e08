import JSON
import Locking

/// An MCP server for alertd's tools, for any transport: hand it each message the client sends, send back the reply
/// it returns, and forward what it emits (progress notifications) on the same channel.
///
/// Messages may be handled concurrently (a transport should: a waiting `ask` must not hold up a `ping` or the
/// `notifications/cancelled` that stops it). A waiting call holds no thread: `handle` waits suspended in its
/// backend's wait; `start` hands the wait to the transport (`ToolStep`), which may hold no task at all.
///
/// Protocol: the `initialize` handshake of 2025-06-18 and 2025-11-25 (the client's version when supported, else the
/// newest), `notifications/initialized`, `ping`, `tools/list`, `tools/call`, `notifications/cancelled`, and
/// `notifications/progress` for a request that carries `_meta.progressToken`. And the stateless 2026-07-28
/// revision: `server/discover`, and each request that names 2026-07-28 in its `_meta` answered with `resultType`
/// (and the caching members of `tools/list`); an unknown version there is `-32022` listing the supported ones.
public final class MCPServer: Sendable {
    /// The revisions of the `initialize` handshake, newest first.
    public static let protocolVersions = ["2025-11-25", "2025-06-18"]
    /// The stateless revisions (no `initialize`; the version in each request's `_meta`).
    public static let statelessVersions = ["2026-07-28"]
    /// The request `_meta` member that carries a stateless request's version.
    public static let versionMetaKey = "io.modelcontextprotocol/protocolVersion"

    public struct Options: Sendable {
        /// The version in `serverInfo`.
        public var version: String
        /// Return the values of secure fields to the agent (by default each is replaced by `secureMarker`).
        public var revealSecure: Bool
        /// How often a waiting call sends a progress notification.
        public var progressInterval: Duration
        /// Seconds until an approval alert expires (which denies); `nil`: never.
        public var approvalTimeout: Double?
        /// Withdraw (dismiss) the alert of an `ask` or `approve` whose call is cancelled.
        public var dismissOnCancel: Bool

        public init(
            version: String = "0", revealSecure: Bool = false, progressInterval: Duration = .seconds(10),
            approvalTimeout: Double? = nil, dismissOnCancel: Bool = true
        ) {
            self.version = version
            self.revealSecure = revealSecure
            self.progressInterval = progressInterval
            self.approvalTimeout = approvalTimeout
            self.dismissOnCancel = dismissOnCancel
        }
    }

    /// What a secure field's value becomes unless `revealSecure` is set.
    public static let secureMarker = "[secure value withheld]"

    public let options: Options
    private let backend: any AlertBackend
    /// The calls in flight by request id, so that `notifications/cancelled` can cancel them.
    private let inFlight = Lock<[JSONRPC.ID: Task<[UInt8]?, Never>]>([:])
    /// The calls in flight that the client cancelled by `notifications/cancelled`: these get no reply.
    private let cancelledByClient = Lock<Set<JSONRPC.ID>>([])
    /// The version agreed in `initialize`, for the log.
    private let negotiated = Lock<String?>(nil)

    public init(backend: any AlertBackend, options: Options = Options()) {
        self.backend = backend
        self.options = options
    }

    /// The version the last `initialize` agreed, if any.
    public var negotiatedVersion: String? { negotiated.withLock { $0 } }

    /// Cancels every call in flight (a transport that is closing). Unlike `notifications/cancelled`, each still
    /// replies: a call that was done anyway (a refused argument) with its answer, a waiting one saying it was
    /// cancelled. A client that closed its input may still be reading the output.
    public func cancelAll() {
        for task in inFlight.withLock({ Array($0.values) }) { task.cancel() }
    }

    /// How many calls are in flight.
    public var callsInFlight: Int { inFlight.withLock { $0.count } }

    /// Handles one message.
    ///
    /// - Parameters:
    ///   - bytes: the message as JSON text.
    ///   - backend: the backend for this message's caller (alertd's `/mcp`: the caller's token); `nil`, the server's.
    ///   - emit: sends a notification to the client (a progress notification, each a whole JSON-RPC message).
    /// - Returns: the reply to send, or `nil` when there is none (a notification, a response, a cancelled request).
    public func handle(
        _ bytes: some Collection<UInt8>, backend: (any AlertBackend)? = nil,
        emit: @escaping @Sendable ([UInt8]) -> Void = { _ in }
    ) async -> [UInt8]? {
        let message: JSONRPC.Message
        do {
            message = try JSONRPC.parse(bytes)
        } catch {
            return JSONRPC.error(error)
        }
        return await handle(message, backend: backend, emit: emit)
    }

    /// Handles one parsed message (see `handle(_:backend:emit:)`), carrying out a tool's wait for a person on a task
    /// of the call's own, which `notifications/cancelled` cancels by the request's id.
    public func handle(
        _ message: JSONRPC.Message, backend: (any AlertBackend)? = nil,
        emit: @escaping @Sendable ([UInt8]) -> Void = { _ in }
    ) async -> [UInt8]? {
        guard case .request(let id, "tools/call", _) = message else {
            return await start(message, backend: backend, emit: emit).carriedOut()
        }
        let task = Task { () -> [UInt8]? in
            let reply = await start(message, backend: backend, emit: emit).carriedOut()
            return self.cancelledByClient.withLock { $0.contains(id) } ? nil : reply
        }
        inFlight.withLock { $0[id] = task }
        defer {
            _ = inFlight.withLock { $0.removeValue(forKey: id) }
            _ = cancelledByClient.withLock { $0.remove(id) }
        }
        return await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
    }

    /// Handles one parsed message up to the point where a tool waits for a person: the reply to send (`nil`: none),
    /// or the wait, for a transport that carries it out itself (alertd's `/mcp`, on the store with no task) and then
    /// resumes the step. A transport that cancels a call resumes it with `.cancelled` (the tool withdraws its alert)
    /// and sends no reply. Calls are not registered for `notifications/cancelled` here: the transport does that.
    public func start(
        _ message: JSONRPC.Message, backend: (any AlertBackend)? = nil,
        emit: @escaping @Sendable ([UInt8]) -> Void = { _ in }
    ) async -> ToolStep<[UInt8]?> {
        switch message {
        case .response:
            return .done(nil)
        case .notification(let method, let params):
            notify(method: method, params: params)
            return .done(nil)
        case .request(let id, let method, let params):
            do {
                return try await request(
                    id: id, method: method, params: params, backend: backend ?? self.backend, emit: emit)
            } catch {
                return .done(JSONRPC.error(error))
            }
        }
    }

    private func notify(method: String, params: JSONObject) {
        switch method {
        case "notifications/cancelled":
            guard let requestID = params["requestId"].flatMap(JSONRPC.ID.init) else { return }
            let task = inFlight.withLock { $0[requestID] }
            guard let task else { return }
            cancelledByClient.withLock { _ = $0.insert(requestID) }
            task.cancel()
        default:
            // notifications/initialized and anything unknown need nothing.
            break
        }
    }

    private func request(
        id: JSONRPC.ID, method: String, params: JSONObject, backend: any AlertBackend,
        emit: @escaping @Sendable ([UInt8]) -> Void
    ) async throws(JSONRPC.Failure) -> ToolStep<[UInt8]?> {
        var stateless = method == "server/discover"
        if let requested = params["_meta"]?.objectValue?[Self.versionMetaKey] {
            let supported = Self.statelessVersions + Self.protocolVersions
            guard case .string(let version) = requested, supported.contains(version) else {
                throw JSONRPC.Failure(
                    id: id, code: .unsupportedProtocolVersion, message: "Unsupported protocol version",
                    data: .object(["supported": .array(supported.map { .string($0) }), "requested": requested])
                )
            }
            stateless = Self.statelessVersions.contains(version)
        }
        if method == "tools/call" {
            // One map from the tool's value to the reply: it is kept for as long as the tool waits.
            let step = try await call(id: id, params: params, backend: backend, emit: emit)
            return await step.map { [self, stateless] result in
                JSONRPC.result(id: id, stateless ? stamped(result, method: method) ?? result : result)
            }
        }
        let result = try handshakeRequest(id: id, method: method, params: params)
        return .done((stateless ? stamped(result, method: method) : result).map { JSONRPC.result(id: id, $0) })
    }

    private func stamped(_ result: JSONValue?, method: String) -> JSONValue? {
        guard case .object(let object)? = result else { return result }
        return .object(stamped(object, method: method))
    }

    /// A result as the stateless revision writes it: `resultType`, the server's identity in `_meta`, and for lists
    /// the caching members (never cached: `ttlMs` 0, `private`).
    private func stamped(_ result: JSONObject, method: String) -> JSONObject {
        var members = result.members.map { ($0.key, $0.value) }
        members.append(("resultType", .string("complete")))
        members.append(("_meta", .object(["io.modelcontextprotocol/serverInfo": serverInfo])))
        if method == "tools/list" || method == "server/discover" {
            members.append(("ttlMs", .integer(0)))
            members.append(("cacheScope", .string("private")))
        }
        return JSONObject(members)
    }

    private var serverInfo: JSONValue {
        .object(["name": .string("alertd"), "title": .string("alertd"), "version": .string(options.version)])
    }

    private var capabilities: JSONValue { .object(["tools": .object(["listChanged": .bool(false)])]) }

    private func handshakeRequest(id: JSONRPC.ID, method: String, params: JSONObject) throws(JSONRPC.Failure)
        -> JSONValue?
    {
        switch method {
        case "server/discover":
            return .object([
                "supportedVersions": .array((Self.protocolVersions + Self.statelessVersions).map { .string($0) }),
                "capabilities": capabilities,
                "instructions": .string(Tools.instructions),
            ])
        case "initialize":
            return try initialize(id: id, params: params)
        case "ping":
            return .object([:])
        case "tools/list":
            return .object(["tools": .array(Tools.all.map(\.listing))])
        default:
            throw JSONRPC.Failure(id: id, code: .methodNotFound, message: "Method not found: \(method)")
        }
    }

    private func initialize(id: JSONRPC.ID, params: JSONObject) throws(JSONRPC.Failure) -> JSONValue {
        guard let requested = params["protocolVersion"] else {
            throw .invalidParams(
                id: id, argument: "protocolVersion", reason: "is required (a revision such as \"2025-11-25\")"
            )
        }
        guard case .string(let version) = requested else {
            throw .invalidParams(
                id: id, argument: "protocolVersion", reason: "must be a string, not \(requested.typeName)"
            )
        }
        let agreed = Self.protocolVersions.contains(version) ? version : Self.protocolVersions[0]
        negotiated.withLock { $0 = agreed }
        return .object([
            "protocolVersion": .string(agreed),
            "capabilities": capabilities,
            "serverInfo": serverInfo,
            "instructions": .string(Tools.instructions),
        ])
    }

    private func call(
        id: JSONRPC.ID, params: JSONObject, backend: any AlertBackend, emit: @escaping @Sendable ([UInt8]) -> Void
    ) async throws(JSONRPC.Failure) -> ToolStep<JSONValue> {
        guard let nameValue = params["name"] else {
            throw .invalidParams(id: id, argument: "name", reason: "is required (the tool to call)")
        }
        guard case .string(let name) = nameValue else {
            throw .invalidParams(id: id, argument: "name", reason: "must be a string, not \(nameValue.typeName)")
        }
        guard let tool = Tools.named(name) else {
            throw JSONRPC.Failure(
                id: id, code: .invalidParams, message: "Unknown tool: \(name)",
                data: .object(["argument": .string("name"), "reason": .string("no tool is named \(name)")])
            )
        }
        var arguments: JSONObject = [:]
        switch params["arguments"] {
        case nil, .null?: break
        case .object(let given)?: arguments = given
        case let other?:
            throw .invalidParams(id: id, argument: "arguments", reason: "must be an object, not \(other.typeName)")
        }
        let progress = Progress(token: params["_meta"]?.objectValue?["progressToken"], emit: emit)
        let context = ToolContext(backend: backend, options: options, progress: progress)
        return await tool.run(arguments, context)
    }
}

/// Progress notifications for one request: a no-op without a `progressToken`.
final class Progress: Sendable {
    let token: JSONValue?
    let emit: @Sendable ([UInt8]) -> Void
    private let count = Lock<Int64>(0)

    init(token: JSONValue?, emit: @escaping @Sendable ([UInt8]) -> Void) {
        switch token {
        case .string?, .integer?: self.token = token
        default: self.token = nil
        }
        self.emit = emit
    }

    /// Whether the request asked for progress.
    var isRequested: Bool { token != nil }

    /// Sends `notifications/progress` with the next progress count (1, 2, …) and `message`.
    func send(_ message: String) {
        guard let token else { return }
        let progress = count.withLock { count in
            count += 1
            return count
        }
        emit(JSONRPC.notification(method: "notifications/progress", params: [
            "progressToken": token, "progress": .integer(progress), "message": .string(message),
        ]))
    }
}
