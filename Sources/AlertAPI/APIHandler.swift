import AlertCore
import MicroHTTP

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

    /// Methods counted by name in metrics and logs; any other is "other", so labels stay bounded.
    static let metricMethods: Set<String> = ["GET", "HEAD", "POST", "DELETE", "PUT", "PATCH", "OPTIONS"]

    func handle(_ request: HTTPRequest) -> HTTPReply {
        let started = ContinuousClock.now
        let route = Route(path: request.path)
        let requestID = Self.requestID(request.headers["x-request-id"])
        let reply = handle(request, on: route)
        let method = Self.metricMethods.contains(request.method) ? request.method : "other"
        return instrument(reply, id: requestID, route: route.template, method: method, started: started)
    }

    private func handle(_ request: HTTPRequest, on route: Route) -> HTTPReply {
        guard route.allows(request.method) else {
            if case .notFound = route { return .response(Problem.unknownPath(request.path).response) }
            var problem = Problem.plain(405, "Method Not Allowed",
                                        detail: "\(request.method) is not allowed on \(request.path)")
            problem.headers.add("Allow", route.allowedMethods.joined(separator: ", "))
            return .response(problem.response)
        }
        do {
            return try reply(to: request, on: route)
        } catch {
            return .response(error.response)
        }
    }

    func response(for failure: HTTPTransportFailure) -> HTTPResponse {
        switch failure {
        case .bodyTooLarge(let limit):
            Problem.alertd(413, "body-too-large", "Request body too large",
                           detail: "request bodies are limited to \(limit) bytes").response
        case .shuttingDown:
            Problem.shuttingDown.response
        }
    }

    /// Validates what can be checked without the store, then answers or defers.
    private func reply(to request: HTTPRequest, on route: Route) throws(Problem) -> HTTPReply {
        let query = QueryParameters(request: request)
        let method = request.method == "HEAD" ? "GET" : request.method
        switch (route, method) {
        case (.health, _):
            return .response(.json(200, Array(#"{"status":"ok"}"#.utf8)))
        case (.metrics, _):
            return .deferred {
                let text = metrics.render(await store.statistics)
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
                wait: request.queryValue("wait") == nil ? nil : try query.wait()
            )
            return .deferred { await self.events(events) }
        case (.openAPI, _):
            return .response(HTTPResponse(status: 200, headers: ["Content-Type": "application/yaml; charset=utf-8"],
                                          body: Array(EmbeddedOpenAPI.text.utf8)))
        case (.alerts, "POST"):
            let draft = try AlertDraft(json: try Self.parse(request.body), webhooks: webhooks)
            let key = try Self.idempotencyKey(request)
            return later { () async throws(Problem) in try await create(draft, idempotencyKey: key) }
        case (.alerts, _):
            let list = ListRequest(
                query: ListQuery(state: try query.state(), presenter: try query.presenter(),
                                 limit: try query.integer("limit", in: 1...1000) ?? 100),
                index: try query.index(),
                wait: try query.wait()
            )
            return later { () async throws(Problem) in try await self.list(list) }
        case (.alert(let id), "DELETE"):
            return later { () async throws(Problem) in try await dismiss(id) }
        case (.alert(let id), _):
            let wait = try query.wait()
            // A read that needs no waiting is answered at once, without suspending the connection.
            if let alert = store.snapshot(of: id), wait == .zero || alert.result != nil {
                return .response(.json(200, alert: alert))
            }
            return later { () async throws(Problem) in try await alert(id, wait: wait) }
        case (.response(let id), "POST"):
            let answer = try AnswerDraft(json: try Self.parse(request.body))
            return later { () async throws(Problem) in try await self.answer(id, answer) }
        case (.response(let id), _):
            let wait = try query.wait()
            if let alert = store.snapshot(of: id), wait == .zero || alert.result != nil {
                return .response(alert.result.map { .json(200, result: $0) } ?? HTTPResponse(status: 204))
            }
            return later { () async throws(Problem) in try await response(id, wait: wait) }
        case (.notFound, _):
            throw Problem.unknownPath(request.path)
        }
    }

    /// Runs `work` on a suspended connection, turning thrown problems into responses.
    private func later(_ work: @escaping @Sendable () async throws(Problem) -> HTTPResponse) -> HTTPReply {
        .deferred { .response(await Self.run(work)) }
    }

    private static func run(_ work: @Sendable () async throws(Problem) -> HTTPResponse) async -> HTTPResponse {
        do {
            return try await work()
        } catch {
            return error.response
        }
    }

    private static func parse(_ body: [UInt8]) throws(Problem) -> JSONValue {
        do {
            return try JSONParser.parse(body)
        } catch {
            throw .malformedJSON("the body is not valid JSON: \(error.reason) (at byte \(error.offset))")
        }
    }
}
