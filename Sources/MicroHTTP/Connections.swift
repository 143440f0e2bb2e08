import CMicroHTTPD
import Locking

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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

/// Every open connection, for what libmicrohttpd does not do itself: a deadline on request heads
/// (its idle timeout restarts with every byte, so a client trickling a head would hold a
/// connection forever), closing idle keep-alive connections gently at shutdown, and the limit of
/// connections per client address, from which trusted reverse proxies are exempt (libmicrohttpd's
/// own per-address limit knows no exceptions).
///
/// An entry lives from libmicrohttpd's "connection started" notification to its "closed" one,
/// which comes before libmicrohttpd closes the socket: an `fd` found here under the lock is open.
///
/// A connection the tracker gave up on (cut with a 408, or sent end-of-stream at shutdown) never
/// starts another request: `requestStarted` says so under the same lock, so a request whose head
/// completes at that very moment is closed unanswered and is never run.
final class ConnectionTracker: Sendable {
    /// One open connection. Its state has a lock of its own, so the per-request calls of two
    /// libmicrohttpd threads never contend; the tracker's table is locked only when a connection
    /// opens or closes, and by the watchdog.
    final class Entry: Sendable {
        struct State {
            /// When the connection last went idle: accepted, or its previous request completed.
            var idleSince: ContinuousClock.Instant
            /// When the request line of the request now arriving was read.
            var headStarted: ContinuousClock.Instant?
            /// The path of that request line, as sent.
            var path: String?
            /// Its method, once the head is complete.
            var method: String?
            /// From the first handler call (head complete) to the request's completion.
            var busy = false
            /// When the body now arriving must be complete; nil without a body, and once it is in.
            var bodyDeadline: ContinuousClock.Instant?
            /// Answered 408 and shut down by `sweep`, or sent end-of-stream at shutdown: no request
            /// may start on it any more.
            var givenUp = false
            /// libmicrohttpd is closing it: `fd` may be closed, and reused, from now on.
            var closed = false
        }

        let fd: Int32
        /// The client's IP address as text.
        let client: String?
        /// Whether the connection counts against its address's limit (until it closes).
        let counted: Bool
        let state: Lock<State>

        init(fd: Int32, client: String?, counted: Bool, refused: Bool) {
            self.fd = fd
            self.client = client
            self.counted = counted
            state = Lock(State(idleSince: .now, givenUp: refused))
        }
    }

    /// Whether a request whose head is complete may run.
    enum Start: Equatable {
        /// It may; the client's address, and the path as the request line had it.
        case accepted(client: String?, path: String?)
        /// The connection was given up on: close it without running the request.
        case refused
    }

    /// A request the watchdog cuts, with what is known of it.
    enum Overdue {
        /// Its request line did not arrive.
        case line
        /// Its head did not, after its request line.
        case head(path: String?)
        /// Its body did not, after its head.
        case body(method: String?, path: String?)
    }


    private struct Table {
        var entries: [ObjectIdentifier: Entry] = [:]
        /// Open connections by client address, for those that count against `perClientLimit`.
        var perClient: [String: Int] = [:]
    }

    private let table = Lock(Table())
    let idleSeconds: Int
    let headerSeconds: Int
    /// Most connections one address may hold (0: no limit); more are shut down as soon as accepted.
    let perClientLimit: Int
    /// Peers the limit does not apply to: reverse proxies, whose connections carry many clients.
    let exempt: [IPNetwork]

    init(idleTimeout: Int, headerTimeout: Int, perClientLimit: Int = 0, exempt: [IPNetwork] = []) {
        idleSeconds = idleTimeout
        headerSeconds = headerTimeout
        self.perClientLimit = perClientLimit
        self.exempt = exempt
    }

    /// Registers a connection just accepted; the entry goes in the socket context (retained there
    /// until `closed`). A connection beyond its address's limit is shut down at once: libmicrohttpd
    /// reads the end of the stream and closes it, and no request on it ever runs.
    func opened(fd: Int32, client: String?) -> Entry {
        // The address the limit counts this connection under, if any.
        let key = perClientLimit > 0 ? client.flatMap { exempt.contain($0) ? nil : $0 } : nil
        return table.withLock { table in
            let held = key.map { table.perClient[$0, default: 0] } ?? 0
            let refused = key != nil && held >= perClientLimit
            let entry = Entry(fd: fd, client: client, counted: key != nil && !refused, refused: refused)
            table.entries[ObjectIdentifier(entry)] = entry
            if entry.counted, let key { table.perClient[key] = held + 1 }
            if refused { shutdown(fd, Int32(SHUT_RDWR)) }
            return entry
        }
    }

    /// libmicrohttpd is about to close the connection: nothing touches its socket after this.
    func closed(_ entry: Entry) {
        entry.state.withLock { $0.closed = true }
        table.withLock { table in
            _ = table.entries.removeValue(forKey: ObjectIdentifier(entry))
            if entry.counted, let client = entry.client {
                let held = table.perClient[client, default: 0]
                table.perClient[client] = held > 1 ? held - 1 : nil
            }
        }
    }

    /// The request line is in: the head's deadline starts.
    /// - Parameter path: the path of the request line, as sent.
    func headStarted(_ entry: Entry, path: String) {
        entry.state.withLock { state in
            state.headStarted = .now
            state.path = path
        }
    }

    /// The head is complete and the handler has the request: from now on `sweep` and
    /// `finishIdle` leave the connection alone, unless they gave up on it already; `sweep` only
    /// watches `bodyDeadline`.
    func requestStarted(_ entry: Entry, method: String, bodyDeadline: ContinuousClock.Instant?) -> Start {
        entry.state.withLock { state in
            if state.givenUp { return .refused }
            state.busy = true
            state.method = method
            state.bodyDeadline = bodyDeadline
            return .accepted(client: entry.client, path: state.path)
        }
    }

    /// The body is complete: the request may run unless `sweep` cut it a moment ago.
    /// - Returns: false when the connection was given up on; close it without running the request.
    func bodyReceived(_ entry: Entry) -> Bool {
        entry.state.withLock { state in
            state.bodyDeadline = nil
            return !state.givenUp
        }
    }

    /// The response was sent (or the request aborted): the connection is idle again.
    func requestCompleted(_ entry: Entry) {
        entry.state.withLock { state in
            state.busy = false
            state.headStarted = nil
            state.path = nil
            state.method = nil
            state.bodyDeadline = nil
            state.idleSince = .now
        }
    }

    /// Answers `answer` and shuts the connection down, unless it was given up on or is closing. Only
    /// while libmicrohttpd is not writing to it: before the handler has the request, or while a body
    /// arrives. libmicrohttpd then reads the end of the stream and closes it; a request whose head
    /// completes meanwhile is refused by `requestStarted`, one whose body does by `bodyReceived`.
    func cut(_ entry: Entry, answer: () -> [UInt8]) {
        entry.state.withLock { state in
            guard !state.givenUp, !state.closed else { return }
            Self.cut(entry.fd, &state, answer())
        }
    }

    private static func cut(_ fd: Int32, _ state: inout Entry.State, _ answer: [UInt8]) {
        _ = answer.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        shutdown(fd, Int32(SHUT_RDWR))
        state.givenUp = true
    }

    /// The open connections now; each entry's own lock says whether it is still open.
    private var open: [Entry] {
        table.withLock { Array($0.entries.values) }
    }

    /// Answers 408 and shuts down every connection whose request head or body is overdue. libmicrohttpd
    /// is not writing to such a connection (no request has reached the handler, or its body is still
    /// arriving), so the bytes go out whole; it then reads the end of the stream and closes it.
    /// - Parameter answer: the bytes to send for a request that is overdue (and the connection's peer), rendered
    ///   once per cut (the handler logs and counts each). A request line still trickling in is overdue
    ///   `idleSeconds + headerSeconds` after the connection went idle; a head, `headerSeconds` after
    ///   its request line; a body, at its `bodyDeadline`.
    /// - Returns: how many connections were cut.
    @discardableResult
    func sweep(answer: (Overdue, String?) -> [UInt8]) -> Int {
        let now = ContinuousClock.now
        var cut = 0
        for entry in open {
            entry.state.withLock { state in
                guard !state.givenUp, !state.closed else { return }
                let overdue: Overdue
                if state.busy {
                    guard let deadline = state.bodyDeadline, now > deadline else { return }
                    overdue = .body(method: state.method, path: state.path)
                } else {
                    let deadline = state.headStarted.map { $0 + .seconds(headerSeconds) }
                        ?? state.idleSince + .seconds(idleSeconds + headerSeconds)
                    guard now > deadline else { return }
                    overdue = state.headStarted == nil ? .line : .head(path: state.path)
                }
                Self.cut(entry.fd, &state, answer(overdue, entry.client))
                cut += 1
            }
        }
        return cut
    }

    /// At shutdown: sends end-of-stream on every idle connection (no request in progress), so
    /// keep-alive clients see the close before they send another request. Reading stays open:
    /// a request already on its way is read (and closed unanswered, never run), not answered
    /// with a reset.
    func finishIdle() {
        for entry in open {
            entry.state.withLock { state in
                guard !state.busy, !state.givenUp, !state.closed, state.headStarted == nil else { return }
                shutdown(entry.fd, Int32(SHUT_WR))
                state.givenUp = true
            }
        }
    }

    /// Just before libmicrohttpd stops: no request may start any more, on any connection.
    func refuseAll() {
        for entry in open {
            entry.state.withLock { $0.givenUp = true }
        }
    }

    /// Connections given up on and not busy that are still open: their clients have not closed
    /// them yet.
    var lingering: Int {
        open.count { entry in entry.state.withLock { $0.givenUp && !$0.busy && !$0.closed } }
    }
}
