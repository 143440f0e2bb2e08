import CMicroHTTPD
import Locking

/// libmicrohttpd's per-request state (`*con_cls`), from the first handler call to the
/// "completed" callback, which releases it.
///
/// `@unchecked Sendable` invariant: `phase`, `method`, `path`, `body`, `discarded`, `tooLarge`,
/// `client` and `bodyWatch` are only touched from libmicrohttpd's handler and completion callbacks
/// for this connection, which libmicrohttpd never runs concurrently and never while the connection
/// is suspended (shutdown reads `method` and `path` of suspended requests, which no longer change
/// once suspended). `connection` and `fd` never change. What other threads touch
/// (`hand`) lives behind a mutex; `hand.suspended` says whether `connection` may be resumed and
/// `fd` peeked at (both are valid while it is set).
final class ConnectionContext: @unchecked Sendable {
    enum Phase {
        /// Headers seen; the body (if any) is arriving.
        case receiving
        /// Suspended until deferred work or a responder stores a reply and resumes the connection.
        case suspended
        /// A response was queued.
        case answered
    }

    /// What crosses threads: the reply of deferred work, and which suspension may be resumed.
    struct Handoff {
        var reply: HTTPReply?
        /// Applied to `reply` as it is taken (a responder's `mapping`).
        var transform: (@Sendable (HTTPReply) -> HTTPReply)?
        /// Suspended and not yet resumed: libmicrohttpd keeps the connection and its socket open.
        var suspended = false
        /// Counts suspensions: deferred work resumes only the one it was started for.
        var generation = 0
        /// Answered at shutdown: the connection is never suspended or resumed again, so nothing
        /// can resume it once `MHD_stop_daemon` has freed it.
        var forced = false
        /// The transport gave up on suspension `generation` (hang-up, shutdown): its cancel
        /// handlers ran, and one added later runs at once.
        var cancelled = false
        /// What to run if the transport gives up on suspension `generation` before it is answered:
        /// cancels its deferred task, or a responder's `onCancel` handlers. Dropped on resume.
        var onCancel: (@Sendable () -> Void)?
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
    let hand = Lock(Handoff())
    /// The connection, for suspending and resuming.
    let connection: OpaquePointer
    /// Its socket, for noticing a client that hangs up while suspended.
    let fd: Int32

    /// A HEAD request: a streamed reply sends its head only.
    var isHead: Bool { method == "HEAD" }

    /// What the transport knows of the request, for the handler's answer to a failure.
    var head: HTTPRequestHead { HTTPRequestHead(method: method, path: path) }

    init(connection: OpaquePointer) {
        self.connection = connection
        fd = CMicroHTTPD_connection_fd(connection)
    }

    /// Suspends the connection (from the handler). The mutex is held across the call, so no
    /// resume can run before the suspend it answers.
    /// - Returns: the suspension's number, for `resume`; nil when shutdown already answered it.
    func suspend() -> Int? {
        hand.withLock { hand -> Int? in
            guard !hand.forced else { return nil }
            hand.generation += 1
            hand.suspended = true
            hand.cancelled = false
            hand.onCancel = nil
            MHD_suspend_connection(connection)
            return hand.generation
        }
    }

    /// Stores `reply` and resumes suspension `generation`, unless it was resumed already.
    /// - Parameter resumed: runs before the resume when this call is the one that resumes.
    /// - Returns: false when another party resumed it first.
    @discardableResult
    func resume(
        _ generation: Int, with reply: HTTPReply, transform: (@Sendable (HTTPReply) -> HTTPReply)? = nil,
        resumed: () -> Void = {}
    ) -> Bool {
        let (first, dropped) = hand.withLock { hand -> (Bool, (@Sendable () -> Void)?) in
            guard hand.suspended, hand.generation == generation else { return (false, nil) }
            hand.reply = reply
            hand.transform = transform
            hand.suspended = false
            defer { hand.onCancel = nil }
            return (true, hand.onCancel)
        }
        guard first else { return false }
        resumed()
        MHD_resume_connection(connection)
        // Released outside the mutex: what the handlers captured may do work in its deinit.
        withExtendedLifetime(dropped) {}
        return true
    }

    /// Adds `handler` to what runs if the transport gives up on suspension `generation`; runs it at
    /// once when it did already, drops it when that suspension was answered.
    func onCancel(_ generation: Int, _ handler: @escaping @Sendable () -> Void) {
        let now = hand.withLock { hand -> Bool in
            guard hand.generation == generation else { return false }
            if hand.cancelled { return true }
            guard hand.suspended else { return false }
            if let earlier = hand.onCancel {
                hand.onCancel = {
                    earlier()
                    handler()
                }
            } else {
                hand.onCancel = handler
            }
            return false
        }
        if now { handler() }
    }

    /// Whether the transport gave up on suspension `generation`.
    func isCancelled(_ generation: Int) -> Bool {
        hand.withLock { $0.generation == generation && $0.cancelled }
    }

    /// The client hung up while suspended: runs the cancel handlers of the current suspension, once.
    /// The connection stays suspended until its work or responder answers (to a closed socket).
    func cancel() {
        let handlers = hand.withLock { hand -> (@Sendable () -> Void)? in
            guard hand.suspended, !hand.cancelled else { return nil }
            hand.cancelled = true
            defer { hand.onCancel = nil }
            return hand.onCancel
        }
        handlers?()
    }

    /// Whether suspension `generation` still waits for its work's reply.
    func awaits(_ generation: Int) -> Bool {
        hand.withLock { $0.suspended && $0.generation == generation }
    }

    /// At shutdown: answers with `reply` if suspended, and forbids any later suspend or resume.
    /// A request between deciding to suspend and suspending finds `forced` and answers at once.
    /// The cancel handlers of the suspension it answered run afterwards.
    func forceAnswer(with reply: HTTPReply) {
        let (resume, handlers) = hand.withLock { hand -> (Bool, (@Sendable () -> Void)?) in
            hand.forced = true
            guard hand.suspended else { return (false, nil) }
            hand.reply = reply
            hand.transform = nil
            hand.suspended = false
            let handlers = hand.cancelled ? nil : hand.onCancel
            hand.cancelled = true
            hand.onCancel = nil
            return (true, handlers)
        }
        if resume { MHD_resume_connection(connection) }
        handlers?()
    }

    /// Calls `test` with the socket while the connection is suspended, under the mutex: no
    /// resume (after which libmicrohttpd may close the socket) can happen meanwhile.
    /// - Returns: what `test` said, or false when the connection is not suspended.
    func whileSuspended(_ test: (Int32) -> Bool) -> Bool {
        hand.withLock { hand in hand.suspended && test(fd) }
    }

    /// Takes the stored reply on the handler call that follows a resume, transformed.
    func takeReply() -> HTTPReply? {
        let (reply, transform) = hand.withLock { hand in
            defer {
                hand.reply = nil
                hand.transform = nil
            }
            return (hand.reply, hand.transform)
        }
        guard let reply else { return nil }
        return transform.map { $0(reply) } ?? reply
    }
}
