import CMicroHTTPD
import Synchronization

/// libmicrohttpd's per-request state (`*con_cls`), from the first handler call to the
/// "completed" callback, which releases it.
///
/// `@unchecked Sendable` invariant: `phase`, `body`, `discarded` and `startedAt` are only
/// touched from libmicrohttpd's handler and completion callbacks for this connection, which
/// libmicrohttpd never runs concurrently and never while the connection is suspended. The
/// only state other threads touch is `hand`, behind its mutex.
final class ConnectionContext: @unchecked Sendable {
    enum Phase {
        /// Headers seen; the body (if any) is arriving.
        case receiving
        /// Suspended until async work stores a reply and resumes the connection.
        case suspended
        /// A response was queued.
        case answered
    }

    /// What crosses threads: the reply of deferred work, and whether the connection was resumed.
    struct Handoff {
        var reply: HTTPReply?
        var resumed = false
    }

    var phase = Phase.receiving
    /// A HEAD request: a streamed reply sends its head only.
    var isHead = false
    var body: [UInt8] = []
    /// Bytes of an oversize chunked body dropped so far.
    var discarded = 0
    var tooLarge = false
    let hand = Mutex(Handoff())
    /// The connection, for resuming; valid while it is suspended.
    let connection: OpaquePointer

    init(connection: OpaquePointer) {
        self.connection = connection
    }

    /// Stores `reply` and resumes the connection, unless that already happened.
    /// Returns false when another party resumed it first.
    @discardableResult
    func resume(with reply: HTTPReply) -> Bool {
        let first = hand.withLock { hand -> Bool in
            guard !hand.resumed else { return false }
            hand.reply = reply
            hand.resumed = true
            return true
        }
        if first { MHD_resume_connection(connection) }
        return first
    }

    /// Takes the stored reply on the handler call that follows a resume.
    func takeReply() -> HTTPReply? {
        hand.withLock { hand in
            // The reply may itself be deferred work, which suspends and resumes again.
            defer {
                hand.reply = nil
                hand.resumed = false
            }
            return hand.reply
        }
    }
}
