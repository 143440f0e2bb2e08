import AlertCore
import BuildInfo
import JSON
import MicroHTTP

/// The alerts API: maps HTTP requests to `AlertStore` calls and results to JSON.
/// `routes` lists the endpoints. Answers what needs no store at once; everything else waits for the store on a
/// suspended connection.
public struct APIHandler: HTTPHandler {
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
    /// Sessions, CSRF tokens and single-alert links of the responder's page (`/app`).
    var pages = PageAccess(key: .ephemeral())
    /// Told of every alert this instance creates (`--notify`); nil without targets.
    var notifier: Notifier? = nil
    /// Waiting requests per client (token name or address), and their limit.
    var waits = ClientWaits(limit: 0)
    /// Bodies of woken long-polls, shared by the waiters woken with the same alert.
    let renders = WakeRenders()
    /// The journal's WAL size and failed state for `/metrics`; `nil` when memory only.
    var journalGauges: (@Sendable () -> JournalGauges)? = nil
    /// The cluster's counts and reachability for `/metrics`; `nil` without `--database`.
    var clusterGauges: (@Sendable () -> AuthorityStatistics)? = nil
    /// `POST /mcp`: the MCP server, the calls in progress, the origins served.
    let mcp: MCPEndpoint

    /// Methods counted by name in metrics and logs; any other is "other", so labels stay bounded.
    static let metricMethods: Set<String> = ["GET", "HEAD", "POST", "DELETE", "PUT", "PATCH", "OPTIONS"]

    public func handle(_ request: HTTPRequest) -> HTTPReply {
        let match = Self.route(for: request.path)
        let (reply, caller) = answer(request, on: match)
        observe(request, route: match?.route.template.text ?? Self.unknownRoute, caller: caller?.name)
        return reply
    }

    /// The reply of the endpoint `match` has for the request's method, once the checks before it pass (see
    /// `routes`), or the problem of the first check that fails; and the caller once its token is known.
    private func answer(_ request: HTTPRequest, on match: (route: Route, id: AlertID)?) -> (HTTPReply, Caller?) {
        if let browsers {
            do throws(Problem) {
                try browsers.check(request.headers, allowingSameOrigin: Self.isPagePath(request.path))
            } catch {
                return (.response(error.response), nil)
            }
        }
        guard let match else { return (.response(Problem.unknownPath(request.path).response), nil) }
        guard let endpoint = match.route.endpoint(for: request.method) else {
            return (.response(Problem.methodNotAllowed(request, allow: match.route.allow).response), nil)
        }
        let caller: Caller
        do {
            caller = try authenticate(request, endpoint.action)
        } catch {
            return (.response(error.response), nil)
        }
        do {
            try authorize(caller, endpoint.action)
            let route = RouteRequest(request: request, caller: caller, id: match.id)
            if store.authority != nil, !match.id.rawValue.isEmpty, store.snapshot(of: match.id) == nil {
                // In a cluster, an alert created on another instance a moment ago may not be applied here yet.
                return (.deferred {
                    await store.catchUp()
                    if match.route.template.text.hasPrefix("/v1/alerts/"), store.snapshot(of: match.id) == nil,
                       let reason = store.authority?.unavailableReason {
                        // Not here, and the database, which may hold it, could not be asked: not a 404.
                        return .response(Problem(AlertStoreError(kind: .unavailable, message: "alertd cannot look "
                            + "for alert \(match.id.rawValue) in its database right now (\(reason)); try again "
                            + "shortly")).response)
                    }
                    do throws(Problem) {
                        return try endpoint.answer(self, route)
                    } catch {
                        return .response(error.response)
                    }
                }, caller)
            }
            return (try endpoint.answer(self, route), caller)
        } catch {
            return (.response(error.response), caller)
        }
    }

    /// The transport's own answer, tagged and counted as `observe` does; for a request `handle` observes already
    /// (answered at shutdown), its observer counts it and its headers go on it.
    public func response(for failure: HTTPTransportFailure, to request: HTTPRequestHead) -> HTTPResponse {
        var response = Problem(failure).response
        guard !request.isObserved else { return response }
        let id = Self.requestID(request.headers["x-request-id"])
        let method = request.method.map(Self.methodLabel) ?? "other"
        let route = request.path.map(Self.routeLabel) ?? Self.unknownRoute
        Self.record(response.status, after: .zero, id: id, route: route, method: method, caller: nil,
                    client: request.clientAddress, metrics: metrics, log: log)
        response.headers.add("X-Request-Id", id)
        response.headers.add("X-Alertd-Instance", store.epoch)
        return response
    }

    /// `method` as metrics and logs label it: one of `metricMethods`, or `other`.
    static func methodLabel(_ method: String) -> String {
        metricMethods.contains(method) ? method : "other"
    }

    static func parse(_ body: [UInt8]) throws(Problem) -> JSONValue {
        do {
            return try JSONParser.parse(body)
        } catch {
            throw .malformedJSON("the body is not valid JSON: \(error.reason) (at byte \(error.offset))")
        }
    }
}

extension APIHandler {
    /// The routes over `store`, as the composition root (AlertServer) builds them.
    /// - Parameters:
    ///   - webhooks: which callback destinations producers may give.
    ///   - keepAlive: how often an idle event stream sends a keep-alive comment.
    ///   - tokens: who may do what; open, requests from web pages are refused unless their `Origin` is one of
    ///     `allowedOrigins`, and their `Host` one of `allowedHosts`, `localhost`, an IP address or `listenHost`.
    ///   - waitsPerClient: most waiting requests one client may hold; 0: no limit.
    ///   - journalGauges: the journal's WAL size and failed state for `/metrics`; `nil` when memory only.
    ///   - clusterGauges: the cluster's counts and reachability for `/metrics`; `nil` without a cluster.
    ///   - mcp: how `POST /mcp` answers.
    ///   - pages: the page's sessions, and the key of its links and CSRF tokens (`PageKey`).
    ///   - notifier: told of every new alert (`--notify`).
    public init(store: AlertStore, metrics: Metrics, log: AccessLog, webhooks: WebhookPolicy, keepAlive: Duration,
                tokens: LiveTokens, allowedOrigins: [String], allowedHosts: [String], listenHost: String,
                waitsPerClient: Int, journalGauges: (@Sendable () -> JournalGauges)?,
                clusterGauges: (@Sendable () -> AuthorityStatistics)?, mcp: MCPOptions = MCPOptions(),
                pages: PageAccess? = nil, notifier: Notifier? = nil) {
        let browsers = tokens.isOpen
            ? BrowserGuard(origins: allowedOrigins, hosts: allowedHosts, listenHost: listenHost) : nil
        self.init(store: store, metrics: metrics, log: log, webhooks: webhooks, keepAlive: keepAlive, tokens: tokens,
                  browsers: browsers, waits: ClientWaits(limit: waitsPerClient), journalGauges: journalGauges,
                  clusterGauges: clusterGauges,
                  mcp: MCPEndpoint(store: store, options: mcp, version: BuildInfo.version, origins: allowedOrigins))
        if let pages { self.pages = pages }
        self.notifier = notifier
    }
}
