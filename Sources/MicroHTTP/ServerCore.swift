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
    let maxQueryParameters: Int
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
    /// Bytes of answers queued and not sent yet.
    let budget: ResponseBudget

    init(handler: any HTTPHandler, configuration: HTTPServerConfiguration) {
        self.handler = handler
        maxBodySize = configuration.maxBodySize
        streamBufferLimit = configuration.streamBufferLimit
        maxURLBytes = configuration.maxURLBytes
        maxQueryParameters = configuration.maxQueryParameters
        maxHeaderBytes = configuration.maxHeaderBytes
        bodyTimeout = configuration.bodyTimeout
        trustedProxies = configuration.trustedProxies
        tracker = ConnectionTracker(
            idleTimeout: configuration.idleTimeout, headerTimeout: configuration.headerTimeout,
            perClientLimit: max(0, configuration.perClientConnectionLimit), exempt: configuration.trustedProxies)
        budget = ResponseBudget(perClient: max(0, configuration.unreadBytesPerClient),
                                total: max(0, configuration.unreadBytesTotal), exempt: configuration.trustedProxies)
    }

    /// The access handler; see `MHDCallbacks.access`.
    func access(
        connection: OpaquePointer,
        method: String,
        url: UnsafePointer<CChar>?,
        version: UnsafePointer<CChar>?,
        upload: UnsafePointer<CChar>?,
        uploadSize: UnsafeMutablePointer<Int>,
        context: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let raw = context.pointee else {
            return start(connection: connection, method: method, url: url, version: version, context: context)
        }
        let request = Unmanaged<ConnectionContext>.fromOpaque(raw).takeUnretainedValue()
        switch request.phase {
        case .receiving where uploadSize.pointee > 0:
            return receive(upload, count: uploadSize, into: request)
        case .receiving:
            // The body is in: the watchdog's deadline on it ends, unless it cut the connection already.
            if let entry = request.bodyWatch {
                request.bodyWatch = nil
                guard tracker.bodyReceived(entry) else { return .NO }
            }
            if request.tooLarge {
                request.phase = .answered
                return queue(respond(to: .bodyTooLarge(limit: maxBodySize), request.head), for: request, close: true)
            }
            return dispatch(request)
        case .suspended:
            return perform(request.takeReply() ?? .response(respond(to: .shuttingDown, request.head)), for: request)
        case .answered:
            uploadSize.pointee = 0
            return .YES
        }
    }

    /// The first handler call: the head is in. Checks its framing and limits, and starts the body's
    /// deadline. Queues nothing unless refusing the request: a response queued now makes
    /// libmicrohttpd 0.9.75 close keep-alive connections.
    private func start(
        connection: OpaquePointer, method: String, url: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?,
        context: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        let framing = RequestFraming(of: connection)
        let failure = framing.failure(version: version)
            ?? (framing.headerBytes > maxHeaderBytes ? .headersTooLarge(limit: maxHeaderBytes) : nil)
        let oversize = (framing.contentLength ?? 0) > UInt64(maxBodySize)
        let bodyDeadline = failure == nil && !oversize && framing.hasBody
            ? ContinuousClock.now + .seconds(bodyTimeout) : nil
        let entry = CMicroHTTPD_socket_context(connection)
            .map { Unmanaged<ConnectionTracker.Entry>.fromOpaque($0).takeUnretainedValue() }
        var client: String?
        var path: String?
        if let entry {
            // Cut by the watchdog or sent end-of-stream at shutdown as the head completed:
            // close without running the request, whose answer could not reach the client.
            let start = tracker.requestStarted(entry, method: method, bodyDeadline: bodyDeadline)
            guard case .accepted(let address, let target) = start else { return .NO }
            (client, path) = (address, target)
        }
        let fresh = ConnectionContext(connection: connection)
        fresh.client = client
        fresh.method = method
        fresh.path = path ?? url.map { String(cString: $0) } ?? "/"
        if bodyDeadline != nil { fresh.bodyWatch = entry }
        context.pointee = Unmanaged.passRetained(fresh).toOpaque()
        inFlight.add(1, ordering: .relaxed)
        if let failure {
            fresh.phase = .answered
            var head = fresh.head
            head.headers = headers(of: connection)
            let response = respond(to: failure, head)
            guard let entry else { return queue(response, for: fresh, close: true) }
            fresh.answering(with: response)
            // Written directly, not queued: libmicrohttpd may lack the memory to build a response
            // after a head that nearly filled it, and then closes the connection with no answer.
            tracker.cut(entry) { Self.wire(response) }
            return .NO
        }
        if oversize {
            fresh.phase = .answered
            return queue(respond(to: .bodyTooLarge(limit: maxBodySize), fresh.head), for: fresh, close: true)
        }
        if framing.expectsContinue, bodyDeadline != nil,
           let refusal = handler.continuation(for: HTTPRequest(
               method: method, path: fresh.path, query: query(of: connection), headers: headers(of: connection),
               body: [], clientAddress: client, context: fresh)) {
            // Refused before libmicrohttpd sends 100 Continue: the body is never read.
            if let entry { _ = tracker.bodyReceived(entry) }
            fresh.bodyWatch = nil
            fresh.phase = .answered
            return queue(refusal, for: fresh, close: true)
        }
        return .YES
    }

    /// The handler's response to `failure`; the handler logs and counts it.
    /// - Parameter head: what is known of the request; its `clientAddress` is the connection's peer, resolved here
    ///   through a trusted proxy's forwarding headers as a handled request's is.
    func respond(to failure: HTTPTransportFailure, _ head: HTTPRequestHead) -> HTTPResponse {
        var head = head
        head.clientAddress = HTTPRequest.client(peer: head.clientAddress, headers: head.headers,
                                                trustedProxies: trustedProxies)
        return handler.response(for: failure, to: head)
    }

    /// The request is complete: hand it to the handler and answer or suspend.
    private func dispatch(_ request: ConnectionContext) -> MHD_Result {
        let connection = request.connection
        let headers = headers(of: connection)
        var message = HTTPRequest(
            method: request.method,
            path: request.path,
            query: query(of: connection),
            headers: headers,
            body: request.body,
            clientAddress: HTTPRequest.client(peer: request.client, headers: headers, trustedProxies: trustedProxies),
            context: request
        )
        message.viaTrustedProxy = request.client.map(trustedProxies.contain) ?? false
        request.body = []
        return perform(handler.handle(message), for: request)
    }

    /// Carries out a reply: queue a response, suspend for a responder (deferred work included), or start a stream.
    private func perform(_ reply: HTTPReply, for request: ConnectionContext) -> MHD_Result {
        switch reply {
        case .response(let response):
            request.phase = .answered
            return queue(response, for: request, close: false)
        case .suspended(let start):
            guard let generation = suspend(request) else { return refuseSuspending(request) }
            // No task: the application keeps the responder and answers through it, from any thread.
            start(HTTPResponder(core: self, request: request, generation: generation))
            return .YES
        case .stream(let head, let producer):
            request.phase = .answered
            if request.isHead { return sendHead(of: head, to: request) }
            if state.withLock({ $0.stopping }) {
                return queue(respond(to: .shuttingDown, request.head), for: request, close: true)
            }
            return startStream(head, producer, for: request)
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
        return queue(respond(to: .shuttingDown, request.head), for: request, close: true)
    }

    /// Stores the reply and resumes suspension `generation` of the connection, once; not when
    /// shutdown answered it already, or another party did.
    func resume(_ request: ConnectionContext, _ generation: Int, with reply: HTTPReply) {
        request.resume(generation, with: reply) {
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
        for request in left { request.forceAnswer(with: .response(respond(to: .shuttingDown, request.head))) }
    }

    /// libmicrohttpd completed `request`: its finish observers run, then it no longer counts as in flight.
    /// - Parameter completed: whether the whole response went out.
    func requestCompleted(_ request: ConnectionContext, completed: Bool) {
        if let reservation = request.reservation {
            request.reservation = nil
            budget.release(reservation)
        }
        request.finish(completed: completed)
        inFlight.subtract(1, ordering: .relaxed)
    }

    /// Creates, fills and queues a libmicrohttpd response to `request`, with the headers its handler added.
    func queue(_ response: HTTPResponse, for request: ConnectionContext, close: Bool) -> MHD_Result {
        let response = budgeted(response, for: request)
        request.answering(with: response)
        let connection = request.connection
        let created = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
                                            .RESPMEM_MUST_COPY)
        }
        guard let created else { return .NO }
        defer { MHD_destroy_response(created) }
        for field in response.headers {
            MHD_add_response_header(created, field.name, field.value)
        }
        request.responseHeaders.forEach { MHD_add_response_header(created, $0.name, $0.value) }
        if close || draining.load(ordering: .relaxed) {
            MHD_add_response_header(created, "Connection", "close")
        }
        return MHD_queue_response(connection, UInt32(response.status), created)
    }

    /// `response`, its bytes reserved in `budget` until the request completes; or, when they would pass a limit,
    /// the handler's refusal in its place (reserved too: it is small, and always passes).
    private func budgeted(_ response: HTTPResponse, for request: ConnectionContext) -> HTTPResponse {
        switch budget.reserve(response.body.count, method: request.method, client: request.client) {
        case .success(let reservation):
            request.reservation = reservation
            return response
        case .failure(let refusal):
            let failure: HTTPTransportFailure = switch refusal {
            case .client(let limit): .unreadResponses(perClient: true, limit: limit)
            case .total(let limit): .unreadResponses(perClient: false, limit: limit)
            }
            let refused = respond(to: failure, request.head)
            request.reservation = try? budget.reserve(refused.body.count, method: "", client: request.client).get()
            return refused
        }
    }
}
