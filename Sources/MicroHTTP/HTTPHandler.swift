/// What a handler does with a request: answer now, or answer after async work or an event.
public enum HTTPReply: Sendable {
    /// Queue this response at once; the connection is never suspended.
    case response(HTTPResponse)
    /// Suspend the connection, run the work on the Swift concurrency pool, then resume
    /// the connection and carry out the reply it returns. No thread waits meanwhile.
    case deferred(@Sendable () async -> HTTPReply)
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

/// Failures the transport answers itself, before or instead of the handler.
public enum HTTPTransportFailure: Sendable, Equatable {
    /// The body exceeded the configured limit (in bytes).
    case bodyTooLarge(limit: Int)
    /// The server is stopping and a suspended request could not be answered in time.
    case shuttingDown
    /// The request target (path and query) exceeded the configured limit (in bytes).
    case uriTooLong(limit: Int)
    /// The header lines exceeded the configured limit (in bytes).
    case headersTooLarge(limit: Int)
    /// The request head or body did not arrive within its deadline (in seconds).
    case requestTimeout(seconds: Int)
}

/// The application side of an `HTTPServer`. Called on libmicrohttpd's threads:
/// `handle` must not block.
public protocol HTTPHandler: Sendable {
    /// Decides how to answer `request`.
    /// - Parameter request: the complete request, body included.
    func handle(_ request: HTTPRequest) -> HTTPReply

    /// The response for a failure the transport detected itself.
    /// - Parameter failure: what went wrong.
    func response(for failure: HTTPTransportFailure) -> HTTPResponse
}

extension HTTPHandler {
    public func response(for failure: HTTPTransportFailure) -> HTTPResponse {
        switch failure {
        case .bodyTooLarge(let limit): .text(413, "request body larger than \(limit) bytes\n")
        case .shuttingDown: .text(503, "shutting down\n")
        case .uriTooLong(let limit): .text(414, "request target longer than \(limit) bytes\n")
        case .headersTooLarge(let limit): .text(431, "request headers larger than \(limit) bytes\n")
        case .requestTimeout(let seconds): .text(408, "request not received within \(seconds) s\n")
        }
    }
}
