import Locking

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
