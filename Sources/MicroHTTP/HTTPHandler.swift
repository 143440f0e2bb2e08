import Locking

/// What a handler does with a request: answer now, or answer after async work or an event.
public enum HTTPReply: Sendable {
    /// Queue this response at once; the connection is never suspended.
    case response(HTTPResponse)
    /// Suspend the connection and call the closure at once, on this thread, with a responder
    /// that answers the request later, from any thread. No task, no thread waits meanwhile:
    /// a waiter costs what the application keeps to call the responder. The closure must not
    /// block; a suspension nobody answers lasts until the server stops.
    case suspended(@Sendable (HTTPResponder) -> Void)
    /// Send `head` (status and headers) now, then a body produced by `producer` as it goes,
    /// chunked. The producer runs on the Swift concurrency pool; the stream ends when it calls
    /// `finish`, when the client leaves (writes answer `.closed`), or when the server stops.
    case stream(HTTPResponse, @Sendable (HTTPBodyStream) async -> Void)
}

extension HTTPReply {
    /// Suspends the connection, runs `work` on the Swift concurrency pool, then resumes the connection and
    /// carries out the reply it returns. No thread waits meanwhile. The work's task is cancelled when the
    /// transport gives up on the request (the client hung up, the server stops), and never starts when shutdown
    /// answered the request first.
    /// - Parameter work: produces the reply.
    public static func deferred(_ work: @escaping @Sendable () async -> HTTPReply) -> HTTPReply {
        .suspended { responder in
            let task = Task {
                guard responder.isPending else { return }
                responder.respond(await work())
            }
            responder.onCancel { task.cancel() }
        }
    }
}

/// Failures the transport answers itself, before or instead of the handler.
public enum HTTPTransportFailure: Sendable, Equatable {
    /// The body exceeded the configured limit (in bytes).
    case bodyTooLarge(limit: Int)
    /// The server is stopping and a suspended request could not be answered in time.
    case shuttingDown
    /// The request target (path and query) exceeded the configured limit (in bytes).
    case uriTooLong(limit: Int)
    /// The request target holds more query parameters than the configured limit.
    case tooManyQueryParameters(limit: Int)
    /// The header lines exceeded the configured limit (in bytes).
    case headersTooLarge(limit: Int)
    /// The request head or body did not arrive within its deadline (in seconds).
    case requestTimeout(seconds: Int)
    /// The request breaks HTTP/1.1's syntax or framing (RFC 9112): conflicting or bad lengths, a bad
    /// header name or target, a missing `Host`. Says what, for the client. The connection is closed.
    case malformedRequest(String)
    /// The body has a transfer coding other than `chunked`, which is all the server decodes.
    case unsupportedTransferCoding(String)
    /// A `GET` or `HEAD` answer would take the bytes of answers the client has not read yet past `limit`
    /// (`perClient`), or those of every client (`ResponseBudget`).
    case unreadResponses(perClient: Bool, limit: Int)
}

/// What the transport knew of a request it answered itself.
public struct HTTPRequestHead: Sendable {
    /// The method, once the head was complete; nil before.
    public var method: String?
    /// The path as sent (not percent-decoded), once the request line was in; nil before.
    public var path: String?
    /// The header fields (names lower-cased), once the head was complete; empty before.
    public var headers: HTTPHeaders
    /// Whether the handler registered `HTTPRequest.onFinish` for this request: its observers see this response's
    /// end too, and the headers it added with `HTTPRequest.addResponseHeader` go on this response.
    public var isObserved: Bool
    /// The client's address, as `HTTPRequest.clientAddress` would have it (a trusted proxy's forwarding headers
    /// read, when the head was); nil when the connection's peer is not known.
    public var clientAddress: String?

    /// Creates a head; the server builds these, tests may too.
    public init(method: String? = nil, path: String? = nil, headers: HTTPHeaders = HTTPHeaders(),
                isObserved: Bool = false, clientAddress: String? = nil) {
        self.method = method
        self.path = path
        self.headers = headers
        self.isObserved = isObserved
        self.clientAddress = clientAddress
    }
}

/// The application side of an `HTTPServer`. Called on libmicrohttpd's threads:
/// `handle` must not block.
public protocol HTTPHandler: Sendable {
    /// Decides how to answer `request`.
    /// - Parameter request: the complete request, body included.
    func handle(_ request: HTTPRequest) -> HTTPReply

    /// The response for a failure the transport detected itself. Called once for each such response,
    /// as the transport sends it (also from its watchdog), so the application may log and count it when no
    /// `onFinish` observer will (`request.isObserved`).
    /// - Parameters:
    ///   - failure: what went wrong.
    ///   - request: what the transport knew of the request.
    func response(for failure: HTTPTransportFailure, to request: HTTPRequestHead) -> HTTPResponse

    /// Called when a request's head is in and its client waits for `100 Continue` before it sends
    /// the body (`Expect: 100-continue`): a response refuses the request before the body is sent (the
    /// connection is then closed); nil lets the client send it, and `handle` gets the whole request.
    /// - Parameter request: the request without its body.
    func continuation(for request: HTTPRequest) -> HTTPResponse?
}

extension HTTPHandler {
    public func response(for failure: HTTPTransportFailure, to request: HTTPRequestHead) -> HTTPResponse {
        switch failure {
        case .bodyTooLarge(let limit): .text(413, "request body larger than \(limit) bytes\n")
        case .shuttingDown: .text(503, "shutting down\n")
        case .uriTooLong(let limit): .text(414, "request target longer than \(limit) bytes\n")
        case .tooManyQueryParameters(let limit): .text(414, "request target with more than \(limit) query parameters\n")
        case .headersTooLarge(let limit): .text(431, "request headers larger than \(limit) bytes\n")
        case .requestTimeout(let seconds): .text(408, "request not received within \(seconds) s\n")
        case .malformedRequest(let reason): .text(400, reason + "\n")
        case .unsupportedTransferCoding(let reason): .text(501, reason + "\n")
        case .unreadResponses(let perClient, let limit):
            .text(perClient ? 429 : 503, "more than \(limit) bytes of answers not read yet\n")
        }
    }

    public func continuation(for request: HTTPRequest) -> HTTPResponse? {
        nil
    }
}

extension HTTPHandler {
    /// Answers `request` in this process, without a socket or libmicrohttpd: what `handle` replies, with deferred
    /// and suspended work awaited (a responder's `onCancel` handlers never run: nothing gives up on the request),
    /// the headers added with `addResponseHeader` after the response's own, and the `onFinish` observers run once
    /// the response is ready. A stream answers with its head, and its producer is not run. For tests of what an
    /// application answers that are not about the transport (framing, limits, hang-ups, shutdown are the server's).
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        let started = ContinuousClock.now
        let exchange = LocalExchange()
        var request = request
        request.local = exchange
        var reply = handle(request)
        var response: HTTPResponse
        while true {
            switch reply {
            case .response(let answer):
                response = answer
            case .stream(let head, _):
                response = head
            case .suspended(let start):
                reply = await withCheckedContinuation { continuation in
                    exchange.waitForReply(continuation)
                    start(HTTPResponder(local: exchange))
                }
                continue
            }
            break
        }
        response.headers = exchange.addedHeaders.applied(to: response.headers)
        exchange.finish(HTTPCompletion(status: response.status, bodyBytes: response.body.count,
                                       duration: .now - started, completed: true))
        return response
    }
}

/// What a request answered in process holds: the headers and finish observers its handler added, and the
/// continuation its responder resumes.
final class LocalExchange: Sendable {
    private struct State {
        var headers = AddedHeaders()
        var observers: [@Sendable (HTTPCompletion) -> Void] = []
        /// Who waits for the reply of the current suspension; nil once answered.
        var waiting: CheckedContinuation<HTTPReply, Never>?
    }

    private let state = Lock(State())

    func addResponseHeader(_ name: String, _ value: String) {
        state.withLock { $0.headers.add(name, value) }
    }

    func addFinishObserver(_ observer: @escaping @Sendable (HTTPCompletion) -> Void) {
        state.withLock { $0.observers.append(observer) }
    }

    var addedHeaders: AddedHeaders { state.withLock { $0.headers } }

    /// Waits for the reply of a suspension that starts now.
    func waitForReply(_ continuation: CheckedContinuation<HTTPReply, Never>) {
        state.withLock { $0.waiting = continuation }
    }

    /// The responder's reply; only the first of a suspension counts.
    func answer(_ reply: HTTPReply) {
        let waiting = state.withLock { state in
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume(returning: reply)
    }

    var isPending: Bool { state.withLock { $0.waiting != nil } }

    /// Runs the finish observers, once.
    func finish(_ completion: HTTPCompletion) {
        let observers = state.withLock { state in
            defer { state.observers = [] }
            return state.observers
        }
        observers.forEach { $0(completion) }
    }
}
