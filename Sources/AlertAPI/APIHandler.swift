import AlertCore
import MicroHTTP
import JSON

/// The alerts API: maps HTTP requests to `AlertStore` calls and results to JSON.
/// Answers what needs no store at once; everything else runs as deferred work on a
/// suspended connection.
struct APIHandler: HTTPHandler {
    let store: AlertStore
    let metrics: Metrics
    let log: AccessLog
    let webhooks: WebhookPolicy
    /// How often an idle event stream sends a keep-alive comment.
    let keepAlive: Duration
    /// Who may do what; open: everyone may do everything.
    let tokens: LiveTokens
    /// Keeps web pages out of an open alertd; nil when tokens are configured.
    let browsers: BrowserGuard?
    /// Waiting requests per client (token name or address), and their limit.
    var waits = ClientWaits(limit: 0)
    /// Bodies of woken long-polls, shared by the waiters woken with the same alert.
    let renders = WakeRenders()
    /// The journal's WAL size and failed state for `/metrics`; `nil` when memory only.
    var journalGauges: (@Sendable () -> JournalGauges)? = nil

    /// Methods counted by name in metrics and logs; any other is "other", so labels stay bounded.
    static let metricMethods: Set<String> = ["GET", "HEAD", "POST", "DELETE", "PUT", "PATCH", "OPTIONS"]

    func handle(_ request: HTTPRequest) -> HTTPReply {
        let started = ContinuousClock.now
        let route = Route(path: request.path)
        let requestID = Self.requestID(request.headers["x-request-id"])
        let (reply, caller) = handle(request, on: route)
        let method = Self.metricMethods.contains(request.method) ? request.method : "other"
        return instrument(reply, id: requestID, route: route.template, method: method, caller: caller?.name,
                          started: started)
    }

    /// The reply, and the caller once its token is known.
    private func handle(_ request: HTTPRequest, on route: Route) -> (HTTPReply, Caller?) {
        if let browsers {
            do throws(Problem) {
                try browsers.check(request.headers)
            } catch {
                return (.response(error.response), nil)
            }
        }
        guard route.allows(request.method) else {
            if case .notFound = route { return (.response(Problem.unknownPath(request.path).response), nil) }
            var problem = Problem.plain(405, "Method Not Allowed",
                                        detail: "\(request.method) is not allowed on \(request.path)")
            problem.headers.add("Allow", route.allowedMethods.joined(separator: ", "))
            return (.response(problem.response), nil)
        }
        let action = route.action(for: request.method)
        let caller: Caller
        do {
            caller = try authenticate(request, action)
        } catch {
            return (.response(error.response), nil)
        }
        do {
            try authorize(caller, action)
            return (try reply(to: request, on: route, as: caller), caller)
        } catch {
            return (.response(error.response), caller)
        }
    }

    func response(for failure: HTTPTransportFailure, to request: HTTPRequestHead) -> HTTPResponse {
        var response = Problem(failure).response
        let id = Self.requestID(request.headers["x-request-id"])
        let method = request.method.map { Self.metricMethods.contains($0) ? $0 : "other" } ?? "other"
        let route = request.path.map { Route(path: $0).template } ?? Route.notFound.template
        record(response.status, id: id, route: route, method: method, caller: nil, started: .now)
        response.headers.add("X-Request-Id", id)
        return response
    }

    /// Validates what can be checked without the store, then answers or defers.
    private func reply(
        to request: HTTPRequest, on route: Route, as caller: Caller, caughtUp: Bool = false
    ) throws(Problem) -> HTTPReply {
        if !caughtUp, store.authority != nil, let id = route.alertID, store.snapshot(of: id) == nil {
            // In a cluster, an alert created on another instance a moment ago may not be applied here yet.
            return .deferred {
                await store.catchUp()
                do throws(Problem) {
                    return try reply(to: request, on: route, as: caller, caughtUp: true)
                } catch {
                    return .response(error.response)
                }
            }
        }
        let query = QueryParameters(request: request)
        let method = request.method == "HEAD" ? "GET" : request.method
        switch (route, method) {
        case (.health, _):
            return .response(health())
        case (.metrics, _):
            return .deferred {
                let text = metrics.render(await store.statistics, journal: journalGauges?())
                return .response(HTTPResponse(
                    status: 200, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"],
                    body: Array(text.utf8)))
            }
        case (.events, _):
            let since = try query.uint64("since")
            let events = EventsRequest(
                cursor: try Self.lastEventID(request) ?? since,
                kinds: try query.eventKinds(),
                presenter: try query.presenter(),
                owner: caller.ownerFilter,
                wait: request.queryValue("wait") == nil ? nil : try query.wait()
            )
            let streamOrPoll = HTTPReply.deferred { await self.events(events) }
            return try waiting(streamOrPoll, if: events.waits(head: request.method == "HEAD"), for: request, as: caller)
        case (.openAPI, _):
            // application/yaml (RFC 9512), or its older alias text/yaml for clients that ask for text.
            let type = AcceptHeader(request.headers["accept"]).preferred(["application/yaml", "text/yaml"])
            return .response(HTTPResponse(
                status: 200, headers: ["Content-Type": "\(type); charset=utf-8", "Vary": "Accept"],
                body: Array(EmbeddedOpenAPI.text.utf8)))
        case (.alerts, "POST"):
            let draft = try AlertDraft(json: try Self.parse(request.body), webhooks: webhooks)
            let key = try Self.idempotencyKey(request)
            // The rules and the id need no store: a create holds it only to store the alert.
            let prepared: PreparedAlert
            do {
                prepared = try PreparedAlert(draft, limits: store.configuration.limits)
            } catch {
                throw Problem(error)
            }
            return create(prepared, by: caller, idempotencyKey: key)
        case (.alerts, _):
            let list = ListRequest(
                query: ListQuery(state: try query.state(), presenter: try query.presenter(), owner: caller.ownerFilter,
                                 limit: try query.integer("limit", in: 1...1000) ?? 100),
                index: try query.index(),
                wait: try query.wait()
            )
            guard let index = list.index, list.wait > .zero else { return self.list(list) }
            let owner = list.query.owner
            let waited = owner.map { whenOwnChanged(list, index: index, owner: $0) } ?? whenChanged(list, index: index)
            return try waiting(waited, if: list.waits, for: request, as: caller)
        case (.alert(let id), "DELETE"):
            _ = try readable(id, by: caller)
            return dismiss(id, by: caller)
        case (.alert(let id), _):
            let wait = try query.wait()
            // A read that needs no waiting is answered at once, without suspending the connection.
            guard let alert = try readable(id, by: caller) else { throw Problem(AlertStoreError.notFound(id)) }
            if wait == .zero || alert.result != nil { return durable(.json(200, alert: alert, for: caller), showing: alert) }
            let renders = self.renders
            let waited = whenResolved(id, wait: wait) { renders.alert($0, for: caller) }
            return try waiting(waited, if: true, for: request, as: caller)
        case (.response(let id), "POST"):
            let answer = try AnswerDraft(json: try Self.parse(request.body))
            return self.answer(id, answer, by: caller)
        case (.response(let id), _):
            let wait = try query.wait()
            guard let alert = try readable(id, by: caller) else { throw Problem(AlertStoreError.notFound(id)) }
            if wait == .zero || alert.result != nil { return durable(.json(resultOf: alert, for: caller), showing: alert) }
            let renders = self.renders
            let waited = whenResolved(id, wait: wait) { renders.result(of: $0, for: caller) }
            return try waiting(waited, if: true, for: request, as: caller)
        case (.notFound, _):
            throw Problem.unknownPath(request.path)
        }
    }

    /// Runs `work` on a suspended connection, turning thrown problems into responses.
    func later(_ work: @escaping @Sendable () async throws(Problem) -> HTTPResponse) -> HTTPReply {
        .deferred { .response(await Self.run(work)) }
    }

    private static func run(_ work: @Sendable () async throws(Problem) -> HTTPResponse) async -> HTTPResponse {
        do {
            return try await work()
        } catch {
            return error.response
        }
    }

    /// `/healthz`: 200 `ok`, or 503 `degraded` once the journal failed (writes are refused until a restart) or
    /// while the cluster's database is unreachable;
    /// with the instance identity and whether alerts survive a restart.
    private func health() -> HTTPResponse {
        var writer = JSONWriter(capacity: 160)
        writer.beginObject()
        let failure = store.writeFailure
        writer.key("status"); writer.write(failure == nil ? "ok" : "degraded")
        if let failure {
            // A journal's failure lasts until a restart; an unreachable database until this instance reconnects.
            let reason = store.authority == nil
                ? "writes failed: \(failure.reason); restart alertd"
                : "writes refused: \(failure.reason); reconnecting"
            writer.key("reason"); writer.write(reason)
        }
        writer.key("instance"); writer.write(store.epoch)
        writer.key("durable"); writer.write(store.journal != nil || store.authority != nil)
        writer.endObject()
        return .json(failure == nil ? 200 : 503, writer.bytes)
    }

    private static func parse(_ body: [UInt8]) throws(Problem) -> JSONValue {
        do {
            return try JSONParser.parse(body)
        } catch {
            throw .malformedJSON("the body is not valid JSON: \(error.reason) (at byte \(error.offset))")
        }
    }
}
