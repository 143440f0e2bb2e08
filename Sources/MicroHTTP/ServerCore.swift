import CMicroHTTPD
import Locking
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The state libmicrohttpd's callbacks reach through their `cls` pointer: the handler,
/// the limits, and the bookkeeping that shutdown needs (suspended and in-flight requests).
final class ServerCore: Sendable {
    struct State {
        /// Requests whose connection is suspended, waiting for deferred work.
        var suspended: [ObjectIdentifier: ConnectionContext] = [:]
        /// Streamed responses still open.
        var streams: [ObjectIdentifier: HTTPBodyStream] = [:]
        /// Set just before the last pass that answers suspended requests: nothing may suspend after it,
        /// since `MHD_stop_daemon` aborts while any connection is suspended.
        var stopping = false
    }

    let handler: any HTTPHandler
    let maxBodySize: Int
    let streamBufferLimit: Int
    let maxURLBytes: Int
    let maxHeaderBytes: Int
    let bodyTimeout: Int
    /// Peers whose forwarding headers name the client.
    let trustedProxies: [IPNetwork]
    let state = Lock(State())
    /// Requests between their first handler call and their completion callback. Atomic, as is
    /// `draining`: every request touches both, and a lock shared by the libmicrohttpd threads
    /// made them wait on each other.
    let inFlight = Atomic<Int>(0)
    /// Set once shutdown starts: every response then closes its connection.
    let draining = Atomic<Bool>(false)
    /// Every open connection, for the head deadline and a gentle close at shutdown.
    let tracker: ConnectionTracker

    init(handler: any HTTPHandler, configuration: HTTPServerConfiguration) {
        self.handler = handler
        maxBodySize = configuration.maxBodySize
        streamBufferLimit = configuration.streamBufferLimit
        maxURLBytes = configuration.maxURLBytes
        maxHeaderBytes = configuration.maxHeaderBytes
        bodyTimeout = configuration.bodyTimeout
        trustedProxies = configuration.trustedProxies
        tracker = ConnectionTracker(
            idleTimeout: configuration.idleTimeout, headerTimeout: configuration.headerTimeout,
            perClientLimit: max(0, configuration.perClientConnectionLimit), exempt: configuration.trustedProxies)
    }

    /// The access handler; see `MHDCallbacks.access`.
    func access(
        connection: OpaquePointer,
        method: String,
        url: UnsafePointer<CChar>?,
        upload: UnsafePointer<CChar>?,
        uploadSize: UnsafeMutablePointer<Int>,
        context: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let raw = context.pointee else {
            // First call: headers are in. Queue nothing here unless refusing the body:
            // a response queued now makes libmicrohttpd 0.9.75 close keep-alive connections.
            var client: String?
            if let raw = CMicroHTTPD_socket_context(connection) {
                // Cut by the watchdog or sent end-of-stream at shutdown as the head completed:
                // close without running the request, whose answer could not reach the client.
                let entry = Unmanaged<ConnectionTracker.Entry>.fromOpaque(raw).takeUnretainedValue()
                guard case .accepted(let address) = tracker.requestStarted(entry) else { return .NO }
                client = address
            }
            let fresh = ConnectionContext(connection: connection)
            fresh.client = client
            context.pointee = Unmanaged.passRetained(fresh).toOpaque()
            inFlight.add(1, ordering: .relaxed)
            if let refusal = refusal(of: connection, url: url) {
                fresh.phase = .answered
                return queue(handler.response(for: refusal), on: connection, close: true)
            }
            if let length = header("Content-Length", of: connection).flatMap(Int.init), length > maxBodySize {
                fresh.phase = .answered
                return queue(handler.response(for: .bodyTooLarge(limit: maxBodySize)), on: connection, close: true)
            }
            return .YES
        }
        let request = Unmanaged<ConnectionContext>.fromOpaque(raw).takeUnretainedValue()
        switch request.phase {
        case .receiving where uploadSize.pointee > 0:
            if ContinuousClock.now - request.startedAt > .seconds(bodyTimeout) {
                // A body trickling in: each byte restarts libmicrohttpd's idle timeout, this does not.
                uploadSize.pointee = 0
                request.phase = .answered
                let response = handler.response(for: .requestTimeout(seconds: bodyTimeout))
                if queue(response, on: connection, close: true) == .YES { return .YES }
                // libmicrohttpd 0.9.75 takes no response while a body arrives: write it ourselves (it
                // is not writing to this socket now), then have it close the connection.
                _ = Self.wire(response).withUnsafeBytes {
                    send(request.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                }
                return .NO
            }
            return receive(upload, count: uploadSize, into: request)
        case .receiving:
            if request.tooLarge {
                request.phase = .answered
                return queue(handler.response(for: .bodyTooLarge(limit: maxBodySize)), on: connection, close: true)
            }
            return dispatch(request, method: method, url: url)
        case .suspended:
            return perform(request.takeReply() ?? .response(handler.response(for: .shuttingDown)), for: request)
        case .answered:
            uploadSize.pointee = 0
            return .YES
        }
    }

    /// The request is complete: hand it to the handler and answer or suspend.
    private func dispatch(_ request: ConnectionContext, method: String, url: UnsafePointer<CChar>?) -> MHD_Result {
        let connection = request.connection
        request.isHead = method == "HEAD"
        let headers = HTTPHeaders(values(of: .HEADER_KIND, on: connection).map { ($0.0.lowercased(), $0.1) })
        let message = HTTPRequest(
            method: method,
            path: url.map { String(cString: $0) } ?? "/",
            query: values(of: .GET_ARGUMENT_KIND, on: connection).map { .init(name: $0.0, value: $0.1) },
            headers: headers,
            body: request.body,
            clientAddress: HTTPRequest.client(peer: request.client, headers: headers, trustedProxies: trustedProxies)
        )
        request.body = []
        return perform(handler.handle(message), for: request)
    }

    /// Carries out a reply: queue a response, suspend for deferred work or a responder, or start a stream.
    private func perform(_ reply: HTTPReply, for request: ConnectionContext) -> MHD_Result {
        let connection = request.connection
        switch reply {
        case .response(let response):
            request.phase = .answered
            return queue(response, on: connection, close: false)
        case .deferred(let work):
            guard let generation = suspend(request) else { return refuseSuspending(request) }
            let task = Task {
                // Answered by shutdown before the work began: it must not run unanswered.
                guard request.awaits(generation) else { return }
                let next = await work()
                self.resume(request, generation, with: next)
            }
            request.onCancel(generation) { task.cancel() }
            return .YES
        case .suspended(let start):
            guard let generation = suspend(request) else { return refuseSuspending(request) }
            // No task: the application keeps the responder and answers through it, from any thread.
            start(HTTPResponder(core: self, request: request, generation: generation))
            return .YES
        case .stream(let head, let producer):
            request.phase = .answered
            // HEAD gets the stream's head only; a chunked HEAD answer makes libmicrohttpd
            // 0.9.75 send a stray terminating chunk that corrupts a keep-alive connection.
            if request.isHead { return queue(head, on: connection, close: false) }
            if state.withLock({ $0.stopping }) {
                return queue(handler.response(for: .shuttingDown), on: connection, close: true)
            }
            return startStream(head, producer, on: connection)
        }
    }

    /// Suspends the connection and lists it among the suspended requests; nil when shutdown has
    /// begun answering suspended requests, even a moment ago.
    private func suspend(_ request: ConnectionContext) -> Int? {
        let admitted = state.withLock { state -> Bool in
            guard !state.stopping else { return false }
            state.suspended[ObjectIdentifier(request)] = request
            return true
        }
        guard admitted, let generation = request.suspend() else {
            state.withLock { _ = $0.suspended.removeValue(forKey: ObjectIdentifier(request)) }
            return nil
        }
        request.phase = .suspended
        return generation
    }

    /// The answer to a reply that would suspend once shutdown forbids it: the handler's `shuttingDown`
    /// response, closing the connection. The reply's work is dropped unrun.
    private func refuseSuspending(_ request: ConnectionContext) -> MHD_Result {
        request.phase = .answered
        return queue(handler.response(for: .shuttingDown), on: request.connection, close: true)
    }

    /// Stores the reply and resumes suspension `generation` of the connection, once; not when
    /// shutdown answered it already, or another party did.
    func resume(_ request: ConnectionContext, _ generation: Int, with reply: HTTPReply,
                transform: (@Sendable (HTTPReply) -> HTTPReply)? = nil) {
        request.resume(generation, with: reply, transform: transform) {
            // Only by the party that resumes: a late reply must not unlist a later suspension.
            state.withLock { _ = $0.suspended.removeValue(forKey: ObjectIdentifier(request)) }
        }
    }

    /// Resumes every suspended connection with the handler's `shuttingDown` response; none
    /// suspends or resumes after this (`stopping` is set first).
    func forceAnswerSuspended() {
        let left = state.withLock { state in
            defer { state.suspended.removeAll() }
            return Array(state.suspended.values)
        }
        let response = handler.response(for: .shuttingDown)
        for request in left { request.forceAnswer(with: .response(response)) }
    }

    func requestCompleted() {
        inFlight.subtract(1, ordering: .relaxed)
    }

    /// Creates, fills and queues a libmicrohttpd response.
    func queue(_ response: HTTPResponse, on connection: OpaquePointer, close: Bool) -> MHD_Result {
        let created = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
                                            .RESPMEM_MUST_COPY)
        }
        guard let created else { return .NO }
        defer { MHD_destroy_response(created) }
        for field in response.headers {
            MHD_add_response_header(created, field.name, field.value)
        }
        if close || draining.load(ordering: .relaxed) {
            MHD_add_response_header(created, "Connection", "close")
        }
        return MHD_queue_response(connection, UInt32(response.status), created)
    }
}
