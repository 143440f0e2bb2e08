import AlertCore
import Foundation
import MicroHTTP

/// One resource of the API: its path template and its endpoints, one per method. `APIHandler.routes` lists them all.
struct Route: Sendable {
    /// One method on the resource: the role action it needs and the function that answers it.
    struct Endpoint: Sendable {
        let method: String
        let action: Role.Action
        /// Parses, checks what needs no store, then answers or defers; runs after the caller may do `action`.
        let answer: @Sendable (APIHandler, RouteRequest) throws(Problem) -> HTTPReply
    }

    let template: PathTemplate
    /// The endpoints by method, in slots rather than an array: a route is copied on every request, and nothing
    /// in it is a heap object that two libmicrohttpd threads would retain and release at once.
    private var get: Endpoint?
    private var post: Endpoint?
    private var delete: Endpoint?

    /// - Parameters:
    ///   - template: the path template, with at most one `{id}`.
    ///   - endpoints: one per method, each of `GET`, `POST` and `DELETE` at most once.
    init(_ template: String, _ endpoints: [Endpoint]) {
        self.template = PathTemplate(template)
        for endpoint in endpoints {
            switch endpoint.method {
            case "GET": get = endpoint
            case "POST": post = endpoint
            case "DELETE": delete = endpoint
            default: preconditionFailure("\(template): no slot for \(endpoint.method)")
            }
        }
    }

    /// The endpoint for `method`, or nil when the resource does not answer it. `HEAD` is answered by `GET`'s
    /// endpoint; the transport sends the head only.
    func endpoint(for method: String) -> Endpoint? {
        switch method {
        case "GET", "HEAD": get
        case "POST": post
        case "DELETE": delete
        default: nil
        }
    }

    /// The endpoints, `GET` first.
    var endpoints: [Endpoint] { [get, post, delete].compactMap { $0 } }

    /// The `Allow` header of a 405: the methods answered, `HEAD` after `GET`.
    var allow: String {
        endpoints.flatMap { $0.method == "GET" ? ["GET", "HEAD"] : [$0.method] }.joined(separator: ", ")
    }
}

extension Route.Endpoint {
    static func get(_ action: Role.Action,
                    _ answer: @escaping @Sendable (APIHandler, RouteRequest) throws(Problem) -> HTTPReply) -> Self {
        Self(method: "GET", action: action, answer: answer)
    }

    static func post(_ action: Role.Action,
                     _ answer: @escaping @Sendable (APIHandler, RouteRequest) throws(Problem) -> HTTPReply) -> Self {
        Self(method: "POST", action: action, answer: answer)
    }

    static func delete(_ action: Role.Action,
                       _ answer: @escaping @Sendable (APIHandler, RouteRequest) throws(Problem) -> HTTPReply) -> Self {
        Self(method: "DELETE", action: action, answer: answer)
    }
}

/// What an endpoint function gets: the request, who sent it (allowed to do the endpoint's action), and the `{id}`
/// its path names.
struct RouteRequest {
    let request: HTTPRequest
    let caller: Caller
    /// The path's `{id}`; empty on a route without one.
    let id: AlertID

    var query: QueryParameters { QueryParameters(request: request) }
    var isHead: Bool { request.method == "HEAD" }
}

/// A path template with at most one parameter (`/v1/alerts/{id}/response`), matched against a path as sent,
/// byte by byte: a literal template is one string comparison, a template with a parameter a comparison of its
/// prefix and its suffix. The path is never split into pieces (splitting into `Character`s cost a tenth of a
/// request's time; docs/PERFORMANCE.md). Paths are not percent-decoded: an encoded `/` or NUL is part of a
/// parameter, never another route.
struct PathTemplate: Sendable {
    /// The template as written, a bounded label for metrics and logs.
    let text: String
    /// The bytes before the parameter; the whole template when it has none.
    private let prefix: String
    /// The bytes after the parameter; nil when it has none.
    private let suffix: String?

    init(_ text: String) {
        self.text = text
        let bytes = Array(text.utf8)
        guard let open = bytes.firstIndex(of: UInt8(ascii: "{")),
              let close = bytes[open...].firstIndex(of: UInt8(ascii: "}"))
        else {
            (prefix, suffix) = (text, nil)
            return
        }
        prefix = String(decoding: bytes[..<open], as: UTF8.self)
        suffix = String(decoding: bytes[(close + 1)...], as: UTF8.self)
    }

    /// Whether `path` matches, and the parameter's value: empty for a literal template, else a non-empty segment
    /// without `/`.
    func match(_ path: String) -> Substring? {
        guard let suffix else { return path == prefix ? "" : nil }
        let bytes = path.utf8
        guard bytes.count > prefix.utf8.count + suffix.utf8.count, bytes.starts(with: prefix.utf8),
              bytes.reversed().starts(with: suffix.utf8.reversed())
        else { return nil }
        let start = bytes.index(bytes.startIndex, offsetBy: prefix.utf8.count)
        let end = bytes.index(bytes.endIndex, offsetBy: -suffix.utf8.count)
        let value = bytes[start..<end]
        guard !value.contains(UInt8(ascii: "/")) else { return nil }
        return Substring(value)
    }
}

extension APIHandler {
    /// Every endpoint alertd answers, grouped by resource: the path template, then per method the role action
    /// the caller needs (`Role.may`) and the function that answers. `HEAD` is answered as `GET`. A request is
    /// checked in this order: browsers (`BrowserGuard`), path (404), method (405 with `Allow`), token (401),
    /// role (403), then the endpoint function (its own 400, 404, 422, 429, ...).
    static let routes: [Route] = [
        Route("/healthz", [
            .get(.readPublic) { handler, _ in .response(handler.health()) },
        ]),
        Route("/openapi.yaml", [
            .get(.readPublic) { handler, route in .response(handler.openAPI(route)) },
        ]),
        Route("/metrics", [
            .get(.readMetrics) { handler, _ in handler.metricsText() },
        ]),
        Route("/v1/alerts", [
            .get(.list) { handler, route throws(Problem) in try handler.listAlerts(route) },
            .post(.create) { handler, route throws(Problem) in try handler.createAlert(route) },
        ]),
        Route("/v1/alerts/{id}", [
            .get(.read) { handler, route throws(Problem) in try handler.read(.alert, route) },
            .delete(.dismiss) { handler, route throws(Problem) in try handler.dismissAlert(route) },
        ]),
        Route("/v1/alerts/{id}/response", [
            .get(.read) { handler, route throws(Problem) in try handler.read(.result, route) },
            .post(.answer) { handler, route throws(Problem) in try handler.answerAlert(route) },
        ]),
        Route("/v1/answers", [
            .post(.answer) { handler, route throws(Problem) in try handler.answerMany(route) },
        ]),
        Route("/v1/rules", [
            .get(.manageRules) { handler, _ in handler.listRules() },
            .post(.manageRules) { handler, route throws(Problem) in try handler.createRule(route) },
        ]),
        Route("/v1/rules/{name}", [
            .get(.manageRules) { handler, route in handler.readRule(route) },
            .delete(.manageRules) { handler, route in handler.deleteRule(route) },
        ]),
        Route("/v1/me", [
            .get(.read) { handler, route in .response(handler.me(route)) },
        ]),
        Route("/v1/events", [
            .get(.follow) { handler, route throws(Problem) in try handler.followEvents(route) },
        ]),
        // MCP's Streamable HTTP transport: POST only, no sessions, so GET and DELETE are 405 (the spec allows both).
        Route("/mcp", [
            .post(.mcp) { handler, route throws(Problem) in try handler.mcp(route) },
        ]),
    ] + pageRoutes

    /// The responder's page (APIHandler+App.swift): no bearer token; its session cookie is checked inside.
    static let pageRoutes: [Route] = [
        Route("/app", [.get(.readPublic) { handler, route in handler.appHome(route) }]),
        Route("/app/app.css", [.get(.readPublic) { handler, route in handler.appStyles(route) }]),
        Route("/app/sign-in", [.post(.readPublic) { handler, route in handler.appSignIn(route) }]),
        Route("/app/sign-out", [.post(.readPublic) { handler, route in handler.appSignOut(route) }]),
        Route("/app/link", [
            .get(.readPublic) { handler, route in handler.appLink(route) },
            .post(.readPublic) { handler, route in handler.appUseLink(route) },
        ]),
        Route("/app/answer", [.post(.readPublic) { handler, route in handler.appLinkAnswer(route) }]),
        Route("/app/alerts/{id}", [.get(.readPublic) { handler, route in handler.appAlert(route) }]),
        Route("/app/alerts/{id}/response", [.post(.readPublic) { handler, route in handler.appAnswer(route) }]),
    ]

    /// Whether `path` is the responder page's (`/app`, `/app/…`), whose forms post to the alertd that served them.
    static func isPagePath(_ path: String) -> Bool {
        path == "/app" || path.hasPrefix("/app/")
    }

    /// The metrics and log label of a path no route matches.
    static let unknownRoute = "unknown"

    /// The route `path` names, and its `{id}` (empty for a route without one); nil when none does.
    static func route(for path: String) -> (route: Route, id: AlertID)? {
        for route in routes {
            if let id = route.template.match(path) { return (route, AlertID(rawValue: String(id))) }
        }
        return nil
    }

    /// The metrics and log label of `path`: its route's template, or `unknown`.
    static func routeLabel(_ path: String) -> String {
        route(for: path)?.route.template.text ?? unknownRoute
    }
}

/// The request headers endpoints read; each bad value is a 400 problem naming the header.
extension APIHandler {
    /// `Idempotency-Key`: 1–255 visible ASCII characters, or nil when absent.
    static func idempotencyKey(_ request: HTTPRequest) throws(Problem) -> String? {
        guard let key = request.headers["idempotency-key"] else { return nil }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ $0 > 32 && $0 < 127 }) else {
            var problem = Problem.alertd(400, "invalid-header", "Invalid header",
                                         detail: "Idempotency-Key must be 1–255 visible ASCII characters")
            problem.errors = [Problem.Item(location: .header("Idempotency-Key"), detail: problem.detail)]
            throw problem
        }
        return key
    }

    /// `Last-Event-ID`: the id of the last event an EventSource received, or nil.
    static func lastEventID(_ request: HTTPRequest) throws(Problem) -> UInt64? {
        guard let text = request.headers["last-event-id"], !text.isEmpty else { return nil }
        guard let value = QueryParameters.digits(text).flatMap({ UInt64($0) }) else {
            var problem = Problem.alertd(400, "invalid-header", "Invalid header",
                                         detail: "Last-Event-ID must be an event id (a whole number); got '\(text)'")
            problem.errors = [Problem.Item(location: .header("Last-Event-ID"), detail: problem.detail)]
            throw problem
        }
        return value
    }
}

extension APIHandler {
    /// `Expect: 100-continue`: a request whose token may not make it is refused (401, 403) before the
    /// client sends its body; libmicrohttpd sends `100 Continue` only when this returns nil.
    public func continuation(for request: HTTPRequest) -> HTTPResponse? {
        // An unknown path or method is answered once the (small) body is in, as without Expect.
        guard let match = Self.route(for: request.path),
              let action = match.route.endpoint(for: request.method)?.action
        else { return nil }
        var caller: Caller?
        let problem: Problem
        do {
            caller = try authenticate(request, action)
            try authorize(caller!, action)
            return nil
        } catch {
            problem = error
        }
        observe(request, route: match.route.template.text, caller: caller?.name)
        return problem.response
    }
}

/// Typed access to a request's query parameters; each failure is a 400 problem naming
/// the parameter.
struct QueryParameters {
    let request: HTTPRequest

    /// The longest `wait` the contract allows, in seconds.
    static let maxWait = 300

    /// `wait`: whole seconds, 0–300; absent means 0.
    func wait() throws(Problem) -> Duration {
        .seconds(try integer("wait", in: 0...Self.maxWait) ?? 0)
    }

    /// An unsigned integer parameter within `range`, or nil when absent.
    func integer(_ name: String, in range: ClosedRange<Int>) throws(Problem) -> Int? {
        guard let text = request.queryValue(name) else { return nil }
        guard let value = Self.digits(text).flatMap({ Int($0) }), range.contains(value) else {
            throw .invalidParameter(name, "\(name) must be a whole number from \(range.lowerBound) to "
                + "\(range.upperBound); got '\(text)'")
        }
        return value
    }

    /// `index`: the change index a blocking query waits past.
    func index() throws(Problem) -> UInt64? {
        try uint64("index")
    }

    /// An unsigned 64-bit integer parameter, or nil when absent.
    func uint64(_ name: String) throws(Problem) -> UInt64? {
        guard let text = request.queryValue(name) else { return nil }
        guard let value = Self.digits(text).flatMap({ UInt64($0) }) else {
            throw .invalidParameter(name, "\(name) must be a whole number ≥ 0; got '\(text)'")
        }
        return value
    }

    /// `type`: a comma-separated list of event kinds; absent means all.
    func eventKinds() throws(Problem) -> Set<AlertEvent.Kind> {
        guard let text = request.queryValue("type") else { return [] }
        var kinds: Set<AlertEvent.Kind> = []
        for name in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let kind = AlertEvent.Kind(rawValue: String(name)) else {
                let names = AlertEvent.Kind.allCases.map(\.rawValue).joined(separator: ", ")
                throw .invalidParameter("type", "type must be a comma-separated list of \(names); got '\(text)'")
            }
            kinds.insert(kind)
        }
        return kinds
    }

    /// `state`: pending (default), resolved or all.
    func state() throws(Problem) -> ListQuery.StateFilter {
        guard let text = request.queryValue("state") else { return .pending }
        guard let state = ListQuery.StateFilter(rawValue: text) else {
            throw .invalidParameter("state", "state must be pending, resolved or all; got '\(text)'")
        }
        return state
    }

    /// `presenter`: a presenter name, `[A-Za-z0-9._-]{1,64}`.
    func presenter() throws(Problem) -> String? {
        guard let text = request.queryValue("presenter") else { return nil }
        guard AlertDraft.isValidPresenter(text) else {
            throw .invalidParameter("presenter", "presenter must match [A-Za-z0-9._-]{1,64}; got '\(text)'")
        }
        return text
    }

    static func digits(_ text: String) -> Substring? {
        !text.isEmpty && text.utf8.count <= 20 && text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) ? text[...] : nil
    }
}

/// A request's `Accept` header (RFC 9110 §12.5.1), read only as far as choosing among a few media types needs:
/// media ranges and their `q` weights; other parameters are ignored.
struct AcceptHeader {
    /// Each media range (lowercase `type/subtype`, `type/*` or `*/*`) with its weight, 0 to 1.
    private let ranges: [(range: String, quality: Double)]

    /// - Parameter value: the header's value; nil when the request has none (then every type is acceptable).
    init(_ value: String?) {
        guard let value else {
            ranges = [("*/*", 1)]
            return
        }
        ranges = value.split(separator: ",").compactMap { element in
            let parts = element.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let range = parts.first, range.contains("/") else { return nil }
            let weight = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return (range, min(max(weight, 0), 1))
        }
    }

    /// How acceptable `mediaType` (lowercase `type/subtype`) is: the weight of the most specific range that
    /// matches it (`type/subtype`, then `type/*`, then `*/*`), 0 when none does.
    func quality(of mediaType: String) -> Double {
        let type = mediaType.prefix { $0 != "/" }
        let candidates = [mediaType, "\(type)/*", "*/*"]
        for candidate in candidates {
            if let match = ranges.first(where: { $0.range == candidate }) { return match.quality }
        }
        return 0
    }

    /// The first of `offers` with the highest weight above 0; when none is acceptable, the first offer (the
    /// header is then disregarded, as RFC 9110 allows, rather than answered `406`).
    func preferred(_ offers: [String]) -> String {
        var best = offers[0]
        var bestQuality = 0.0
        for offer in offers {
            let quality = quality(of: offer)
            if quality > bestQuality { (best, bestQuality) = (offer, quality) }
        }
        return best
    }
}
