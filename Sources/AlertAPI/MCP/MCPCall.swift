import AlertMCP
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
    /// The task running the call (until it waits), the store wait it is parked in, whether it was cancelled
    /// (perhaps before it started), and whether by a hang-up.
    /// `leftTask`: the task has returned, or parked the call; it is not kept (a finished task holds its memory).
    private let worker = Lock<(task: Task<Void, Never>?, leftTask: Bool, parked: StoreWait?, cancelled: Bool,
                               hungUp: Bool)>((nil, false, nil, false, false))

    /// - Parameter hangUpCancels: a hang-up is the call's cancellation (the 2026-07-28 revision): the tool withdraws
    ///   its alert. Else (up to 2025-11-25) the alert stays for the client's retry.
    init(_ responder: HTTPResponder, media: Media, hangUpCancels: Bool) {
        phase = Lock(.deciding(responder))
        self.media = media
        self.hangUpCancels = hangUpCancels
        responder.onCancel { [self] in cancel(hangUp: true) }
    }

    private let hangUpCancels: Bool

    /// Runs `work` (the MCP server on the request) on a task of its own, up to the response or a tool's wait, which
    /// waits on the store through `backend` with no task, progress from `progress`; then the response goes out. nil
    /// (the call was cancelled) ends the exchange without one, as the spec has it: 202 with no body, or the
    /// stream's end. `ended` runs once, as the call is over.
    func start(
        backend: StoreBackend, progress: ProgressTimer, ended: @escaping @Sendable () -> Void,
        _ work: @escaping @Sendable (MCPCall) async -> ToolStep<[UInt8]?>
    ) {
        let carrier = Carrier(backend: backend, progress: progress, ended: ended)
        let task = Task { go(await work(self), carrier) }
        let cancelled = worker.withLock { worker in
            if !worker.leftTask { worker.task = task }
            return worker.cancelled
        }
        if cancelled { task.cancel() }
    }

    /// What carries a call's waits out, and what to do once it is over.
    private struct Carrier: Sendable {
        let backend: StoreBackend
        let progress: ProgressTimer
        let ended: @Sendable () -> Void
    }

    /// The response, or the wait to park in.
    private func go(_ step: ToolStep<[UInt8]?>, _ carrier: Carrier) {
        switch step {
        case .done(let response):
            let cancelled = worker.withLock { worker in
                (worker.task, worker.leftTask) = (nil, true)
                return worker.cancelled
            }
            finish(cancelled ? nil : response)
            carrier.ended()
        case .waiting(let wait):
            park(wait, carrier)
        }
    }

    /// Waits on the store, holding no task: the wake resumes the tool (with `.cancelled` after a cancellation)
    /// on a short task of its own.
    private func park(_ wait: ToolWait<[UInt8]?>, _ carrier: Carrier) {
        willWait()
        let ticks = wait.wantsProgress && media.eventStream
            ? carrier.progress.add(wait.progressSender) : nil
        let parked = StoreWait(store: carrier.backend.store)
        let cancelled = worker.withLock { worker in
            (worker.task, worker.leftTask) = (nil, true)
            worker.parked = parked
            return worker.cancelled
        }
        if cancelled { parked.cancel() }
        carrier.backend.whenResolved(wait.alertID, until: wait.deadline, on: parked) { [self] result in
            if let ticks { carrier.progress.remove(ticks) }
            let cancelled = worker.withLock { worker in
                if worker.parked === parked { worker.parked = nil }
                return worker.cancelled
            }
            Task { go(await wait.resume(cancelled ? .failure(.cancelled) : result), carrier) }
        }
    }

    /// Ends the call's wait: the client sent `notifications/cancelled` (then the tool withdraws its alert), or hung up
    /// (`hangUp`: up to 2025-11-25 the alert stays, since MCP does not take a disconnection for a cancellation there,
    /// and a retry with the same idempotency key finds it). The call still answers (a client that is gone gets
    /// nothing).
    func cancel(hangUp: Bool = false) {
        let (task, parked) = worker.withLock { worker in
            worker.cancelled = true
            worker.hungUp = worker.hungUp || hangUp
            return (worker.task, worker.parked)
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
