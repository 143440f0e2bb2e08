import AlertCore
import AlertModel
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
