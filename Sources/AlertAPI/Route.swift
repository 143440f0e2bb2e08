import AlertCore
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
    let endpoints: [Endpoint]
    /// The `Allow` header of a 405: the methods in table order, `HEAD` after `GET`.
    let allow: String

    init(_ template: String, _ endpoints: [Endpoint]) {
        self.template = PathTemplate(template)
        self.endpoints = endpoints
        allow = endpoints.flatMap { $0.method == "GET" ? ["GET", "HEAD"] : [$0.method] }.joined(separator: ", ")
    }

    /// The endpoint for `method`, or nil when the resource does not answer it. `HEAD` is answered by `GET`'s
    /// endpoint; the transport sends the head only.
    func endpoint(for method: String) -> Endpoint? {
        let method = method == "HEAD" ? "GET" : method
        return endpoints.first { $0.method == method }
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
