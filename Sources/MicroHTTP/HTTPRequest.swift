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

/// What a handler ties to a request's lifetime: its end, and headers for whatever response it gets.
///
/// Call these from `HTTPHandler.handle` or `continuation` (the transport's thread, while it has the request);
/// on a request answered in this process (`HTTPHandler.respond(to:)`) they apply to it there, and on any other
/// request not built by the server they do nothing.
extension HTTPRequest {
    /// Runs `observer` once when the request ends: its response sent, or its connection closed first. Use it for
    /// logs and metrics, and to release what the request held (a slot, a reservation) on every path. It runs on a
    /// transport thread: keep it short.
    /// - Parameter observer: gets the status, body bytes and duration.
    public func onFinish(_ observer: @escaping @Sendable (HTTPCompletion) -> Void) {
        context?.addFinishObserver(observer)
        local?.addFinishObserver(observer)
    }

    /// Adds a header field to the response this request gets, whoever produces it: the handler, deferred work, a
    /// responder, a stream's head, or the transport's own answer (at shutdown, to a body too large).
    public func addResponseHeader(_ name: String, _ value: String) {
        context?.responseHeaders.add(name, value)
        local?.addResponseHeader(name, value)
    }
}

extension HTTPRequest {
    /// The client a request comes from, given the peer that sent it and the reverse proxies trusted to
    /// name the client. From any other peer the forwarding headers are ignored (a client could write
    /// them itself), and the client is the peer.
    ///
    /// From a trusted proxy: `X-Forwarded-For` read from the right, skipping trusted proxies (each
    /// appends the address it received from), gives the first untrusted address; when every entry is a
    /// trusted proxy, the left-most. An entry that is not an IP address stops the walk: the last
    /// address read (a trusted proxy's) counts. Without `X-Forwarded-For`, a valid `X-Real-IP`; else
    /// the peer.
    /// - Parameters:
    ///   - peer: the TCP peer's address as text.
    ///   - headers: the request headers.
    ///   - trustedProxies: the networks whose peers may name the client.
    /// - Returns: the client's address, as alertd writes addresses (IPv4-mapped IPv6 as plain IPv4).
    public static func client(peer: String?, headers: HTTPHeaders, trustedProxies: [IPNetwork]) -> String? {
        guard let peer, trustedProxies.contain(peer) else { return peer }
        let forwarded = headers.filter { $0.name.caseInsensitiveEquals("x-forwarded-for") }
            .flatMap { $0.value.split(separator: ",") }
        guard !forwarded.isEmpty else {
            return headers["x-real-ip"].flatMap { IPNetwork.normalized(trimmed($0)) } ?? peer
        }
        var client = peer
        for entry in forwarded.reversed() {
            guard let address = IPNetwork.normalized(trimmed(entry)) else { break }
            client = address
            if !trustedProxies.contain(address) { break }
        }
        return client
    }

    private static func trimmed(_ text: some StringProtocol) -> String {
        String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}

/// An ordered list of HTTP header fields. Lookups ignore case.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// One header field.
    public struct Field: Sendable, Equatable {
        /// The name as given (requests: lower-cased by the server).
        public var name: String
        /// The value, unparsed.
        public var value: String
    }

    private var fields: [Field]

    /// Creates headers from name/value pairs, keeping their order.
    public init(_ pairs: [(String, String)] = []) {
        fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The first value of the header `name` (case-insensitive), or nil.
    public subscript(_ name: String) -> String? {
        fields.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// Appends a field; an existing field of the same name stays.
    /// - Parameters:
    ///   - name: the field name.
    ///   - value: the field value.
    public mutating func add(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Whether a field named `name` (case-insensitive) is present.
    public func contains(_ name: String) -> Bool {
        self[name] != nil
    }

    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }
}

extension String {
    func caseInsensitiveEquals(_ other: String) -> Bool {
        // Request names are lower-cased already and lookups use lower case: try the plain compare first.
        self == other || (utf8.count == other.utf8.count && lowercased() == other.lowercased())
    }
}
