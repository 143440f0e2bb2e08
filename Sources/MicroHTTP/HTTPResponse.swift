import Locking

/// A response to queue on a connection.
public struct HTTPResponse: Sendable {
    /// The status code, e.g. 200.
    public var status: Int
    /// Header fields; `Content-Length` and `Date` are added by the server.
    public var headers: HTTPHeaders
    /// The body bytes.
    public var body: [UInt8]

    /// Creates a response.
    /// - Parameters:
    ///   - status: the status code.
    ///   - headers: header fields to send.
    ///   - body: the body bytes.
    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A `text/plain` response.
    public static func text(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(text.utf8))
    }
}

/// Answers a request that `HTTPReply.suspended` put on hold, later, from any thread, exactly once.
///
/// The connection waits suspended, holding no thread and no task: the application keeps the
/// responder wherever it keeps its waiters and calls `respond(_:)` when it has the answer. The
/// first call wins; later ones do nothing. When the transport gives up on the request (the client
/// hung up, or the server stops and answers it itself), the `onCancel(_:)` handlers run, so the
/// application can drop its waiter; the application may still respond, which then does nothing
/// or answers a client that is gone.
///
/// ```swift
/// return .suspended { responder in
///     let ticket = waiters.add { value in responder.respond(.response(.text(200, value))) }
///     responder.onCancel { waiters.remove(ticket) }
/// }
/// ```
public final class HTTPResponder: Sendable {
    /// Whom the reply goes to.
    private enum Target: Sendable {
        /// A suspended connection; `generation` is the suspension this responder answers (a later suspension of the
        /// same request is not its to answer).
        case connection(ServerCore, ConnectionContext, generation: Int)
        /// A request answered in this process, without a socket (`HTTPHandler.respond(to:)`).
        case local(LocalExchange)
    }

    private let target: Target

    init(core: ServerCore, request: ConnectionContext, generation: Int) {
        target = .connection(core, request, generation: generation)
    }

    init(local exchange: LocalExchange) {
        target = .local(exchange)
    }

    /// Answers the request: resumes its connection and carries out `reply` as if the handler had
    /// returned it (a response, more deferred or suspended work, a stream). Only the first call
    /// counts; later calls, and calls after shutdown answered the request itself, do nothing.
    /// Safe from any thread, and from inside the `.suspended` closure itself.
    /// - Parameter reply: the answer.
    public func respond(_ reply: HTTPReply) {
        switch target {
        case .connection(let core, let request, let generation): core.resume(request, generation, with: reply)
        case .local(let exchange): exchange.answer(reply)
        }
    }

    /// Adds a handler run once if the transport gives up on the request before it is answered:
    /// the client hung up (noticed by the watchdog within about half a second), or the server is
    /// stopping and answered it with the handler's `shuttingDown` response. When that happened
    /// already, `handler` runs at once, on this thread; once the request is answered it never
    /// runs and is released. Handlers run on the transport's threads: keep them short.
    ///
    /// After a hang-up the connection stays suspended until `respond` is called (the reply goes to
    /// a client that is gone or stopped sending): a handler should make that happen soon, or the
    /// connection is held until the server stops.
    /// - Parameter handler: ends whatever would answer the request (a waiter, a timer).
    /// In process there is no transport to give up: `handler` never runs.
    public func onCancel(_ handler: @escaping @Sendable () -> Void) {
        guard case .connection(_, let request, let generation) = target else { return }
        request.onCancel(generation, handler)
    }

    /// Whether the transport gave up on the request (see `onCancel(_:)`).
    public var isCancelled: Bool {
        guard case .connection(_, let request, let generation) = target else { return false }
        return request.isCancelled(generation)
    }

    /// Whether the request still waits for this responder's reply: nobody answered it yet, shutdown included.
    /// True after a hang-up too, until the reply comes (see `onCancel(_:)`).
    public var isPending: Bool {
        switch target {
        case .connection(_, let request, let generation): request.awaits(generation)
        case .local(let exchange): exchange.isPending
        }
    }
}

/// How one request ended, as its `HTTPRequest.onFinish` observers see it: from libmicrohttpd's "completed"
/// callback, once the response was sent (or the connection closed before it was).
public struct HTTPCompletion: Sendable {
    /// The status of the response queued for the request; 0 when none was (the connection closed first).
    public var status: Int
    /// Body bytes handed to libmicrohttpd: the whole body, or as much of a stream as was sent.
    public var bodyBytes: Int
    /// From the request's head being complete to the end.
    public var duration: Duration
    /// Whether the whole response went out; false when the client left, the connection failed or the server
    /// stopped first (a HEAD to a stream too, which is answered by closing).
    public var completed: Bool

    /// Creates a completion; the server builds these, tests may too.
    public init(status: Int, bodyBytes: Int, duration: Duration, completed: Bool) {
        self.status = status
        self.bodyBytes = bodyBytes
        self.duration = duration
        self.completed = completed
    }
}

/// Header fields a handler adds to whatever response its request gets (`HTTPRequest.addResponseHeader`). The
/// first two are kept inline: tagging every request (an id, an instance) allocates nothing.
struct AddedHeaders {
    private var first: HTTPHeaders.Field?
    private var second: HTTPHeaders.Field?
    private var rest: [HTTPHeaders.Field] = []

    mutating func add(_ name: String, _ value: String) {
        let field = HTTPHeaders.Field(name: name, value: value)
        if first == nil {
            first = field
        } else if second == nil {
            second = field
        } else {
            rest.append(field)
        }
    }

    /// Calls `body` with each field, in the order added.
    func forEach(_ body: (HTTPHeaders.Field) -> Void) {
        guard let first else { return }
        body(first)
        guard let second else { return }
        body(second)
        rest.forEach(body)
    }

    /// `headers` with these fields after its own.
    func applied(to headers: HTTPHeaders) -> HTTPHeaders {
        var headers = headers
        forEach { headers.add($0.name, $0.value) }
        return headers
    }
}

/// Bytes of answers queued and not yet sent, by client address (IPv6 by /64) and in all, so that clients that never read cannot
/// make the server hold unbounded memory: libmicrohttpd keeps its copy of a response body until the request completes
/// (sent whole, or the connection closed), however long the client takes to read it.
///
/// Only answers to `GET` and `HEAD` are refused (a write's answer reports what was done, and holds one alert at most);
/// an answer of `smallBytes` or less always passes, so the refusal itself does. Trusted proxies' connections count in
/// the total only: they carry many clients, and read at once.
final class ResponseBudget: Sendable {
    /// Why an answer was refused.
    enum Refusal: Error, Equatable {
        /// The client's unread answers would pass `limit` bytes.
        case client(limit: Int)
        /// Every client's would.
        case total(limit: Int)
    }

    /// What a reservation holds, to give it back.
    struct Reservation {
        let client: String?
        let bytes: Int
    }

    /// Answers this small always pass (and are counted).
    static let smallBytes = 4096

    let perClient: Int
    let total: Int
    private let exempt: [IPNetwork]
    private let held = Lock<(total: Int, perClient: [String: Int])>((0, [:]))

    /// - Parameters:
    ///   - perClient: most unread bytes one client address may have (0: no limit).
    ///   - total: most unread bytes of every client together (0: no limit).
    ///   - exempt: peers counted in the total only.
    init(perClient: Int, total: Int, exempt: [IPNetwork]) {
        self.perClient = perClient
        self.total = total
        self.exempt = exempt
    }

    /// Reserves `bytes` for an answer to `method` from `client` (the peer's address); the refusal when it would pass
    /// a limit.
    func reserve(_ bytes: Int, method: String, client: String?) -> Result<Reservation, Refusal> {
        // An IPv6 client counts by its /64, which one host can fill at will.
        let key = client.flatMap { exempt.contain($0) ? nil : IPNetwork.network64(of: $0) ?? $0 }
        let refusable = bytes > Self.smallBytes && (method == "GET" || method == "HEAD")
        return held.withLock { held in
            let mine = key.map { held.perClient[$0, default: 0] } ?? 0
            if refusable, perClient > 0, key != nil, mine + bytes > perClient {
                return .failure(.client(limit: perClient))
            }
            if refusable, total > 0, held.total + bytes > total { return .failure(.total(limit: total)) }
            held.total += bytes
            if let key { held.perClient[key] = mine + bytes }
            return .success(Reservation(client: key, bytes: bytes))
        }
    }

    /// The answer reserved for is sent, or its connection closed.
    func release(_ reservation: Reservation) {
        held.withLock { held in
            held.total -= reservation.bytes
            guard let key = reservation.client else { return }
            let left = held.perClient[key, default: 0] - reservation.bytes
            held.perClient[key] = left > 0 ? left : nil
        }
    }

    /// Unread bytes now, in all.
    var heldBytes: Int {
        held.withLock { $0.total }
    }
}
