import CMicroHTTPD
import Locking

/// libmicrohttpd's per-request state (`*con_cls`), from the first handler call to the
/// "completed" callback, which releases it.
///
/// `@unchecked Sendable` invariant: `phase`, `method`, `path`, `body`, `discarded`, `tooLarge`,
/// `client`, `bodyWatch`, `status`, `bodyBytes`, `reservation`, `stream`, `responseHeaders` and `finishObservers` are
/// only touched from libmicrohttpd's handler and completion callbacks for this connection (the handler's
/// `handle` and `continuation` included), which libmicrohttpd never runs concurrently and never while the
/// connection is suspended (shutdown reads `method`, `path` and whether `finishObservers` is set of suspended
/// requests, which no longer change once suspended). `connection` and `fd` never change. What other threads touch
/// (`hand`) lives behind a mutex; `hand.isSuspended` says whether `connection` may be resumed and
/// `fd` peeked at (both are valid while it is).
final class ConnectionContext: @unchecked Sendable {
    enum Phase {
        /// Headers seen; the body (if any) is arriving.
        case receiving
        /// Suspended until deferred work or a responder stores a reply and resumes the connection.
        case suspended
        /// A response was queued.
        case answered
    }

    var phase = Phase.receiving
    var method = ""
    /// The path as the request line had it (not percent-decoded).
    var path = ""
    var body: [UInt8] = []
    /// Bytes of an oversize chunked body dropped so far.
    var discarded = 0
    var tooLarge = false
    /// The client's IP address as text.
    var client: String?
    /// The connection's tracker entry while its body has a deadline there, to clear it once the body is in.
    var bodyWatch: ConnectionTracker.Entry?
    /// When the head was complete, for `HTTPCompletion.duration`.
    let started = ContinuousClock.now
    /// The status and body size of the response queued, for `HTTPCompletion`; 0 before one is.
    var status = 0
    var bodyBytes = 0
    /// The unread bytes the queued response holds (`ResponseBudget`), given back at completion.
    var reservation: ResponseBudget.Reservation?
    /// The streamed body, whose bytes sent count instead of `bodyBytes`.
    var stream: HTTPBodyStream?
    /// Added to every response the request gets (`HTTPRequest.addResponseHeader`).
    var responseHeaders = AddedHeaders()
    /// Runs once when libmicrohttpd completes the request (`HTTPRequest.onFinish`).
    private var finishObservers: (@Sendable (HTTPCompletion) -> Void)?
    /// What crosses threads: whether the connection is suspended, its reply, its cancel handlers.
    let hand = Lock(Handoff())
    /// The connection, for suspending and resuming.
    let connection: OpaquePointer
    /// Its socket, for noticing a client that hangs up while suspended.
    let fd: Int32

    /// A HEAD request: a streamed reply sends its head only.
    var isHead: Bool { method == "HEAD" }

    /// What the transport knows of the request, for the handler's answer to a failure.
    /// Its `clientAddress` is the peer's, which `ServerCore.respond` resolves.
    var head: HTTPRequestHead {
        HTTPRequestHead(method: method, path: path, isObserved: finishObservers != nil, clientAddress: client)
    }

    init(connection: OpaquePointer) {
        self.connection = connection
        fd = CMicroHTTPD_connection_fd(connection)
    }

    /// Adds an observer of the request's end (`HTTPRequest.onFinish`).
    func addFinishObserver(_ observer: @escaping @Sendable (HTTPCompletion) -> Void) {
        guard let earlier = finishObservers else {
            finishObservers = observer
            return
        }
        finishObservers = { completion in
            earlier(completion)
            observer(completion)
        }
    }

    /// Notes the response answering the request, for `HTTPCompletion`.
    func answering(with response: HTTPResponse) {
        status = response.status
        bodyBytes = response.body.count
    }

    /// libmicrohttpd completed the request: runs its finish observers, once.
    /// - Parameter completed: whether the whole response went out.
    func finish(completed: Bool) {
        guard let observers = finishObservers else { return }
        finishObservers = nil
        let bytes = stream?.sentBytes ?? bodyBytes
        observers(HTTPCompletion(status: status, bodyBytes: bytes, duration: .now - started, completed: completed))
    }

    /// Suspends the connection (from the handler). The mutex is held across the call, so no
    /// resume can run before the suspend it answers.
    /// - Returns: the suspension's number, for `resume`; nil when shutdown already answered it.
    func suspend() -> Int? {
        hand.withLock { hand -> Int? in
            guard case .suspend(let generation) = hand.suspend() else { return nil }
            MHD_suspend_connection(connection)
            return generation
        }
    }

    /// Stores `reply` and resumes suspension `generation`, unless it was resumed already.
    /// - Parameter resumed: runs before the resume when this call is the one that resumes.
    /// - Returns: false when another party resumed it first.
    @discardableResult
    func resume(_ generation: Int, with reply: HTTPReply, resumed: () -> Void = {}) -> Bool {
        guard case .resume(let dropped) = hand.withLock({ $0.resume(generation, with: reply) })
        else { return false }
        resumed()
        // When the calling thread is running a batch of replies, the resume waits for the batch's end (`HeldCalls`):
        // the connection stays suspended, and so in flight, until then, which the shutdown's waits cover.
        let connection = connection
        HeldCalls.call { MHD_resume_connection(connection) }
        // Released outside the mutex: what the handlers captured may do work in its deinit.
        withExtendedLifetime(dropped) {}
        return true
    }

    /// Adds `handler` to what runs if the transport gives up on suspension `generation`; runs it at
    /// once when it did already, drops it when that suspension was answered.
    func onCancel(_ generation: Int, _ handler: @escaping @Sendable () -> Void) {
        if case .runNow = hand.withLock({ $0.addCancelHandler(generation, handler) }) { handler() }
    }

    /// Whether the transport gave up on suspension `generation`.
    func isCancelled(_ generation: Int) -> Bool {
        hand.withLock { $0.isCancelled(generation) }
    }

    /// The client hung up while suspended: runs the cancel handlers of the current suspension, once.
    /// The connection stays suspended until its work or responder answers (to a closed socket).
    func cancel() {
        hand.withLock { $0.cancel() }?()
    }

    /// Whether suspension `generation` still waits for its work's reply.
    func awaits(_ generation: Int) -> Bool {
        hand.withLock { $0.awaits(generation) }
    }

    /// At shutdown: answers with `reply` if suspended, and forbids any later suspend or resume.
    /// A request between deciding to suspend and suspending finds it closed and answers at once.
    /// The cancel handlers of the suspension it answered run afterwards.
    func forceAnswer(with reply: HTTPReply) {
        guard case .resume(let handlers) = hand.withLock({ $0.forceAnswer(with: reply) }) else { return }
        MHD_resume_connection(connection)
        handlers?()
    }

    /// Calls `test` with the socket while the connection is suspended, under the mutex: no
    /// resume (after which libmicrohttpd may close the socket) can happen meanwhile.
    /// - Returns: what `test` said, or false when the connection is not suspended.
    func whileSuspended(_ test: (Int32) -> Bool) -> Bool {
        hand.withLock { hand in hand.isSuspended && test(fd) }
    }

    /// Takes the stored reply on the handler call that follows a resume.
    func takeReply() -> HTTPReply? {
        hand.withLock { $0.takeReply() }
    }
}
