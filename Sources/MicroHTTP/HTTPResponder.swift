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
