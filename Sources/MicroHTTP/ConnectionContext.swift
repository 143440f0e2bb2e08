import CMicroHTTPD
import Locking

/// libmicrohttpd's per-request state (`*con_cls`), from the first handler call to the
/// "completed" callback, which releases it.
///
/// `@unchecked Sendable` invariant: `phase`, `isHead`, `body`, `discarded`, `tooLarge` and
/// `client` are only touched from libmicrohttpd's handler and completion callbacks for this
/// connection, which libmicrohttpd never runs concurrently and never while the connection is
/// suspended. `connection`, `fd` and `startedAt` never change. What other threads touch
/// (`hand`, `work`) lives behind a mutex; `hand.suspended` says whether `connection` may be
/// resumed and `fd` peeked at (both are valid while it is set).
final class ConnectionContext: @unchecked Sendable {
    enum Phase {
        /// Headers seen; the body (if any) is arriving.
        case receiving
        /// Suspended until async work stores a reply and resumes the connection.
        case suspended
        /// A response was queued.
        case answered
    }

    /// What crosses threads: the reply of deferred work, and which suspension may be resumed.
    struct Handoff {
        var reply: HTTPReply?
        /// Suspended and not yet resumed: libmicrohttpd keeps the connection and its socket open.
        var suspended = false
        /// Counts suspensions: deferred work resumes only the one it was started for.
        var generation = 0
        /// Answered at shutdown: the connection is never suspended or resumed again, so nothing
        /// can resume it once `MHD_stop_daemon` has freed it.
        var forced = false
    }

    var phase = Phase.receiving
    /// A HEAD request: a streamed reply sends its head only.
    var isHead = false
    var body: [UInt8] = []
    /// Bytes of an oversize chunked body dropped so far.
    var discarded = 0
    var tooLarge = false
    /// The client's IP address as text.
    var client: String?
    let hand = Lock(Handoff())
    /// The connection, for suspending and resuming.
    let connection: OpaquePointer
    /// Its socket, for noticing a client that hangs up while suspended.
    let fd: Int32
    /// When the head was complete (the first handler call): the body's deadline counts from here.
    let startedAt = ContinuousClock.now
    /// The deferred work running while suspended, cancelled when the client hangs up.
    let work = Lock<Task<Void, Never>?>(nil)

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
            MHD_suspend_connection(connection)
            return hand.generation
        }
    }

    /// Stores `reply` and resumes suspension `generation`, unless it was resumed already.
    /// - Returns: false when another party resumed it first.
    @discardableResult
    func resume(_ generation: Int, with reply: HTTPReply) -> Bool {
        let first = hand.withLock { hand -> Bool in
            guard hand.suspended, hand.generation == generation else { return false }
            hand.reply = reply
            hand.suspended = false
            return true
        }
        if first { MHD_resume_connection(connection) }
        return first
    }

    /// Whether suspension `generation` still waits for its work's reply.
    func awaits(_ generation: Int) -> Bool {
        hand.withLock { $0.suspended && $0.generation == generation }
    }

    /// At shutdown: answers with `reply` if suspended, and forbids any later suspend or resume.
    /// A request between deciding to suspend and suspending finds `forced` and answers at once.
    func forceAnswer(with reply: HTTPReply) {
        let resume = hand.withLock { hand -> Bool in
            hand.forced = true
            guard hand.suspended else { return false }
            hand.reply = reply
            hand.suspended = false
            return true
        }
        if resume { MHD_resume_connection(connection) }
    }

    /// Calls `test` with the socket while the connection is suspended, under the mutex: no
    /// resume (after which libmicrohttpd may close the socket) can happen meanwhile.
    /// - Returns: what `test` said, or false when the connection is not suspended.
    func whileSuspended(_ test: (Int32) -> Bool) -> Bool {
        hand.withLock { hand in hand.suspended && test(fd) }
    }

    /// Takes the stored reply on the handler call that follows a resume.
    func takeReply() -> HTTPReply? {
        hand.withLock { hand in
            defer { hand.reply = nil }
            return hand.reply
        }
    }
}
