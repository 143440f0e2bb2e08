import AlertMCP
import JSON
import Locking
import MicroHTTP

/// One JSON-RPC request POSTed to `/mcp`, from the POST to its response: decides how the response goes out and
/// carries what the MCP server sends meanwhile.
///
/// The connection stays suspended (no thread) while the call runs on its task, up to its response or to a tool's
/// wait for a person; that wait is the store's, with a callback and no task (`StoreBackend.whenResolved`, as a
/// long-poll waits), its progress from the endpoint's one timer. The first of these decides the answer:
/// the response (one `application/json` body), or the call starting to wait on the store, or a progress notification
/// (a `text/event-stream`: the notifications as they come, then the response, then the end of the stream). A client
/// that accepts only `application/json` gets the response alone, after the wait; one that accepts only
/// `text/event-stream` gets a stream at once.
final class MCPCall: Sendable {
    /// How the client may be answered (its `Accept`).
    struct Media: Sendable, Equatable {
        var json: Bool
        var eventStream: Bool
    }

    private enum Phase {
        /// Neither the response nor a reason to stream yet: the connection waits suspended.
        case deciding(HTTPResponder)
        /// The stream's head is on its way; the messages wait here for its body stream.
        case opening([(message: [UInt8], last: Bool)])
        /// The messages are written to the body stream as they come, from whichever thread has them.
        case streaming(HTTPBodyStream)
        /// Answered, or the client left.
        case done
    }

    private let phase: Lock<Phase>
    private let media: Media
    /// The call's work: its task (until it waits), what carries its waits out, the store wait it is parked in.
    private struct Worker {
        var task: Task<Void, Never>?
        /// The task has returned, or parked the call: it is not kept (a finished task holds its memory).
        var leftTask = false
        /// Whether it was cancelled (perhaps before it started), and whether by a hang-up.
        var cancelled = false
        var hungUp = false
        var carrier: Carrier?
        /// The store wait, the tool's wait, and when its next progress notification is due (nil: the client gets
        /// none). Kept here, not in the wake's closure, so that a waiting call holds each once.
        var parked: (store: StoreWait, tool: ToolWait<[UInt8]?>, due: ContinuousClock.Instant?)?
    }

    private let worker = Lock(Worker())

    /// - Parameter hangUpCancels: a hang-up is the call's cancellation (the 2026-07-28 revision): the tool withdraws
    ///   its alert. Else (up to 2025-11-25) the alert stays for the client's retry.
    init(_ responder: HTTPResponder, media: Media, hangUpCancels: Bool) {
        phase = Lock(.deciding(responder))
        self.media = media
        self.hangUpCancels = hangUpCancels
        responder.onCancel { [self] in cancel(hangUp: true) }
    }

    private let hangUpCancels: Bool

    /// What carries a call's waits out, and where it is registered (for `notifications/cancelled`) until it is over.
    struct Carrier: Sendable {
        let backend: StoreBackend
        let endpoint: MCPEndpoint
        let client: String
        let id: JSONRPC.ID
        /// Whether `endpoint` took the call (it has one with this id already otherwise).
        let registered: Bool
    }

    /// Runs `work` (the MCP server on the request) on a task of its own, up to the response or a tool's wait, which
    /// waits on the store through the carrier's backend with no task, progress from the endpoint's timer; then the
    /// response goes out. nil (the call was cancelled) ends the exchange without one, as the spec has it: 202 with
    /// no body, or the stream's end. Once over, the call leaves the endpoint.
    func start(_ carrier: Carrier, _ work: @escaping @Sendable (MCPCall) async -> ToolStep<[UInt8]?>) {
        worker.withLock { $0.carrier = carrier }
        let task = Task { go(await work(self)) }
        let cancelled = worker.withLock { worker in
            if !worker.leftTask { worker.task = task }
            return worker.cancelled
        }
        if cancelled { task.cancel() }
    }

    /// The response, or the wait to park in.
    private func go(_ step: ToolStep<[UInt8]?>) {
        switch step {
        case .done(let response):
            let (cancelled, carrier) = worker.withLock { worker in
                (worker.task, worker.leftTask) = (nil, true)
                return (worker.cancelled, worker.carrier)
            }
            finish(cancelled ? nil : response)
            if let carrier, carrier.registered { carrier.endpoint.remove(carrier.client, id: carrier.id) }
        case .waiting(let wait):
            park(wait)
        }
    }

    /// Waits on the store, holding no task: the wake resumes the tool (with `.cancelled` after a cancellation)
    /// on a short task of its own.
    private func park(_ wait: ToolWait<[UInt8]?>) {
        willWait()
        guard let carrier = worker.withLock({ $0.carrier }) else { return }
        let streamsProgress = wait.wantsProgress && media.eventStream
        let due = streamsProgress ? ContinuousClock.now + carrier.endpoint.progressInterval : nil
        let parked = StoreWait(store: carrier.backend.store)
        let cancelled = worker.withLock { worker in
            (worker.task, worker.leftTask) = (nil, true)
            worker.parked = (parked, wait, due)
            return worker.cancelled
        }
        if cancelled { parked.cancel() }
        carrier.backend.whenResolved(wait.alertID, until: wait.deadline, on: parked) { [self] result in
            let (wait, cancelled) = worker.withLock { worker -> (ToolWait<[UInt8]?>?, Bool) in
                guard let (store, wait, _) = worker.parked, store === parked else { return (nil, worker.cancelled) }
                worker.parked = nil
                return (wait, worker.cancelled)
            }
            guard let wait else { return }
            Task { go(await wait.resume(cancelled ? .failure(.cancelled) : result)) }
        }
    }

    /// The endpoint's progress timer: sends the parked call's progress notification when it is due.
    func tick(_ now: ContinuousClock.Instant, every interval: Duration) {
        let wait = worker.withLock { worker -> ToolWait<[UInt8]?>? in
            guard let (store, wait, due) = worker.parked, let due, due <= now else { return nil }
            worker.parked = (store, wait, max(due + interval, now))
            return wait
        }
        wait?.sendProgress(now: now)
    }

    /// Ends the call's wait: the client sent `notifications/cancelled` (then the tool withdraws its alert), or hung up
    /// (`hangUp`: up to 2025-11-25 the alert stays, since MCP does not take a disconnection for a cancellation there,
    /// and a retry with the same idempotency key finds it). The call still answers (a client that is gone gets
    /// nothing).
    func cancel(hangUp: Bool = false) {
        let (task, parked) = worker.withLock { worker in
            worker.cancelled = true
            worker.hungUp = worker.hungUp || hangUp
            return (worker.task, worker.parked?.store)
        }
        task?.cancel()
        parked?.cancel()
    }

    /// Whether the client hung up on the call, in a revision where that is no cancellation: its alert is kept.
    var keepsAlert: Bool {
        !hangUpCancels && worker.withLock { $0.hungUp }
    }

    /// The call is about to wait on the store: a client that accepts an event stream gets one now, so its first
    /// byte does not wait for the first progress notification.
    func willWait() {
        guard media.eventStream else { return }
        openStream()
    }

    /// A notification for the client (a `notifications/progress`): streamed when the client accepts a stream,
    /// else dropped (a JSON-only client gets nothing but the response).
    func notify(_ message: [UInt8]) {
        guard media.eventStream else { return }
        openStream()
        send(Self.event(message), last: false)
    }

    /// The response: the body of a JSON answer, or the stream's last message.
    private func finish(_ response: [UInt8]?) {
        let responder = phase.withLock { phase -> HTTPResponder? in
            switch phase {
            case .deciding(let responder) where media.json:
                phase = .done
                return responder
            case .deciding, .opening, .streaming, .done:
                return nil
            }
        }
        if let responder {
            return responder.respond(.response(response.map { .json(200, $0) } ?? HTTPResponse(status: 202)))
        }
        openStream()
        send(response.map(Self.event) ?? [], last: true)
    }

    /// Sends the stream's head (once); `attach` gets its body stream. No task waits meanwhile: the messages are
    /// written from the threads that have them.
    private func openStream() {
        let responder = phase.withLock { phase -> HTTPResponder? in
            guard case .deciding(let responder) = phase else { return nil }
            phase = .opening([])
            return responder
        }
        guard let responder else { return }
        let head = HTTPResponse(status: 200, headers: [
            "Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no",
        ])
        responder.respond(.stream(head) { [self] stream in attach(stream) })
    }

    /// The body stream is there: the messages so far go out, the later ones as they come. A stream that closes
    /// before the response (the client left) ends the call's wait.
    private func attach(_ stream: HTTPBodyStream) {
        phase.withLock { phase in
            guard case .opening(let queued) = phase else { return stream.finish() }
            phase = .streaming(stream)
            for (message, last) in queued { Self.write(message, last: last, to: stream, in: &phase) }
        }
        stream.onClose { [self] in cancel(hangUp: true) }
    }

    /// Writes a message now, or queues it until the stream is attached; the last one ends the stream.
    private func send(_ message: [UInt8], last: Bool) {
        phase.withLock { phase in
            switch phase {
            case .opening(var queued):
                queued.append((message, last))
                phase = .opening(queued)
            case .streaming(let stream):
                Self.write(message, last: last, to: stream, in: &phase)
            case .deciding, .done:
                break
            }
        }
    }

    /// Under the phase's lock, so messages go out in order.
    private static func write(_ message: [UInt8], last: Bool, to stream: HTTPBodyStream, in phase: inout Phase) {
        guard case .streaming = phase else { return }
        if last {
            stream.finish(with: message)
            phase = .done
        } else if stream.write(message) != .written {
            // Progress notifications are few and small: a client whose buffer they fill is not reading.
            stream.finish()
            phase = .done
        }
    }

    /// One SSE message holding a JSON-RPC message (single-line JSON).
    static func event(_ message: [UInt8]) -> [UInt8] {
        Array("event: message\ndata: ".utf8) + message + [10, 10]
    }
}
