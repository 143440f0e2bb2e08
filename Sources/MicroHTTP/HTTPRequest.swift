/// A complete HTTP request as libmicrohttpd parsed it: the body is fully read.
public struct HTTPRequest: Sendable {
    /// One `name=value` pair of the query string, percent-decoded.
    public struct QueryItem: Sendable, Equatable {
        /// The parameter name.
        public var name: String
        /// The value; empty for a bare `?flag`.
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The method, as sent (`GET`, `POST`, ...).
    public var method: String
    /// The path without the query string, as sent: not percent-decoded, so that `%2F` or `%00` can never
    /// make it another path (the query is decoded).
    public var path: String
    /// The query parameters in the order they were sent.
    public var query: [QueryItem]
    /// The request headers, names lower-cased.
    public var headers: HTTPHeaders
    /// The body bytes (at most the server's body limit).
    public var body: [UInt8]
    /// The client's IP address as text (`127.0.0.1`, `::1`); nil when unknown.
    public var clientAddress: String?
    /// Whether the connection's peer is one of the trusted proxies (`HTTPServerConfiguration.trustedProxies`), whose
    /// forwarding headers (`X-Forwarded-For`, `X-Forwarded-Proto`) are believed.
    public var viaTrustedProxy = false
    /// The transport's state of the request, for `onFinish` and `addResponseHeader`; nil when not from a server.
    let context: ConnectionContext?
    /// The same for a request answered in this process (`HTTPHandler.respond(to:)`); nil from a server.
    var local: LocalExchange?

    /// Creates a request; the server builds these, tests may too.
    public init(
        method: String, path: String, query: [QueryItem] = [], headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [],
        clientAddress: String? = nil
    ) {
        self.init(method: method, path: path, query: query, headers: headers, body: body, clientAddress: clientAddress,
                  context: nil)
    }

    init(
        method: String, path: String, query: [QueryItem], headers: HTTPHeaders, body: [UInt8], clientAddress: String?,
        context: ConnectionContext?
    ) {
        self.context = context
        self.clientAddress = clientAddress
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// The first value of the query parameter `name`, or nil when absent.
    public func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }
}
