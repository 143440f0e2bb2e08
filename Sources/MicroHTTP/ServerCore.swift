import CMicroHTTPD
import Locking
import Synchronization
import SystemCalls

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
            Self.addHeader(created, field.name, field.value)
        }
        request.responseHeaders.forEach { Self.addHeader(created, $0.name, $0.value) }
        if close || draining.load(ordering: .relaxed) {
            Self.addHeader(created, "Connection", "close")
        }
        return MHD_queue_response(connection, UInt32(response.status), created)
    }

    /// Adds a header to a libmicrohttpd response through `withCString`, which lends a native string's own bytes: the
    /// implicit `String` → `UnsafePointer<CChar>` conversion copies each string into a new array first, two
    /// allocations a header and ~10% of a `/healthz` (callgrind, issue 28).
    static func addHeader(_ response: OpaquePointer, _ name: String, _ value: String) {
        name.withCString { name in
            value.withCString { value in _ = MHD_add_response_header(response, name, value) }
        }
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

/// Reading a request: its limits, its body, its headers and query.
extension ServerCore {
    /// The request line is in (libmicrohttpd's URI log callback, before it decodes anything): keeps the
    /// path as sent, for the handler and for the head's deadline, and cuts a target that is too long
    /// or has bytes RFC 3986 does not allow (a space, a control character, non-ASCII). libmicrohttpd
    /// is not writing to the connection, so the answer is written directly; a target near
    /// `connectionMemory` leaves libmicrohttpd too little memory to answer, or to go on at all.
    func requestLine(_ entry: ConnectionTracker.Entry, target: UnsafePointer<CChar>?) {
        let bytes = UnsafeRawBufferPointer(start: target, count: target.map { strlen($0) } ?? 0)
        let path = String(decoding: bytes.prefix { $0 != UInt8(ascii: "?") }, as: UTF8.self)
        tracker.headStarted(entry, path: path)
        let failure: HTTPTransportFailure? =
            if bytes.count > maxURLBytes {
                .uriTooLong(limit: maxURLBytes)
            } else if Self.queryParameters(in: bytes) > maxQueryParameters {
                .tooManyQueryParameters(limit: maxQueryParameters)
            } else if bytes.isEmpty || !bytes.allSatisfy({ (0x21...0x7E).contains($0) }) {
                .malformedRequest("the request target is empty or has a space, a control or a non-ASCII byte")
            } else {
                nil
            }
        guard let failure else { return }
        tracker.cut(entry) { Self.wire(respond(to: failure, HTTPRequestHead(path: path, clientAddress: entry.client))) }
    }

    /// How many `&`-separated parameters the target's query holds, as libmicrohttpd splits it (each takes an entry
    /// of the connection's memory: 200 of them filled 8 KiB, and libmicrohttpd answered its own 431).
    static func queryParameters(in target: UnsafeRawBufferPointer) -> Int {
        guard let mark = target.firstIndex(of: UInt8(ascii: "?")) else { return 0 }
        return 1 + target[(mark + 1)...].count { $0 == UInt8(ascii: "&") }
    }

    /// Collects a body chunk; past the limit, drops the body and remembers to answer 413.
    func receive(
        _ upload: UnsafePointer<CChar>?, count: UnsafeMutablePointer<Int>, into request: ConnectionContext
    ) -> MHD_Result {
        let size = count.pointee
        count.pointee = 0
        if request.tooLarge || request.body.count + size > maxBodySize {
            request.tooLarge = true
            request.body = []
            request.discarded += size
            // A chunked body has no length to refuse up front; stop reading it eventually.
            return request.discarded > 16 * maxBodySize ? .NO : .YES
        }
        if let upload {
            request.body.append(contentsOf: UnsafeRawBufferPointer(start: upload, count: size))
        }
        return .YES
    }

    /// The header fields, names lower-cased.
    func headers(of connection: OpaquePointer) -> HTTPHeaders {
        HTTPHeaders(values(of: .HEADER_KIND, on: connection).map { ($0.0.lowercased(), $0.1) })
    }

    /// The query parameters, percent-decoded.
    func query(of connection: OpaquePointer) -> [HTTPRequest.QueryItem] {
        values(of: .GET_ARGUMENT_KIND, on: connection).map { .init(name: $0.0, value: $0.1) }
    }

    func values(of kind: MHD_ValueKind, on connection: OpaquePointer) -> [(String, String)] {
        let collector = KeyValueCollector()
        withExtendedLifetime(collector) {
            _ = MHD_get_connection_values_n(connection, kind, MHDCallbacks.collect,
                                            Unmanaged.passUnretained(collector).toOpaque())
        }
        return collector.pairs
    }
}

extension ServerCore {
    /// The `block_size` of a streamed response.
    static let streamBlockSize = 256

    /// Queues a chunked response whose body `producer` writes, then starts the producer.
    func startStream(
        _ head: HTTPResponse, _ producer: @escaping @Sendable (HTTPBodyStream) async -> Void,
        for request: ConnectionContext
    ) -> MHD_Result {
        request.answering(with: head)
        let connection = request.connection
        let stream = HTTPBodyStream(connection: connection, limit: streamBufferLimit) { [weak self] closed in
            self?.state.withLock { _ = $0.streams.removeValue(forKey: ObjectIdentifier(closed)) }
        }
        let context = Unmanaged.passRetained(stream).toOpaque()
        // A chunked body is read into the connection's write buffer; the block (allocated with each response) only
        // serves an HTTP/1.0 client's unchunked body. Kept small: a waiting stream holds it all along.
        guard let response = MHD_create_response_from_callback(
            UInt64.max, Self.streamBlockSize, MHDCallbacks.readStream, context, MHDCallbacks.releaseStream)
        else {
            Unmanaged<HTTPBodyStream>.fromOpaque(context).release()
            return .NO
        }
        defer { MHD_destroy_response(response) }
        request.stream = stream
        for field in head.headers {
            Self.addHeader(response, field.name, field.value)
        }
        request.responseHeaders.forEach { Self.addHeader(response, $0.name, $0.value) }
        state.withLock { $0.streams[ObjectIdentifier(stream)] = stream }
        if draining.load(ordering: .relaxed) { Self.addHeader(response, "Connection", "close") }
        let queued = MHD_queue_response(connection, UInt32(head.status), response)
        let task = Task {
            await producer(stream)
            stream.producerReturned()
        }
        stream.started(task)
        if stream.isClosed { task.cancel() }
        return queued
    }

    /// Ends every open stream (at shutdown): each sends what it buffered, then closes.
    func finishStreams() {
        let open = state.withLock { Array($0.streams.values) }
        for stream in open { stream.finish() }
    }
}

extension ServerCore {
    /// The answer to HEAD for a streamed reply: the head GET gets (`Transfer-Encoding: chunked`, no
    /// `Content-Length`) and no body, then the connection closes. Written directly: libmicrohttpd 0.9.75
    /// adds `Content-Length: 0` to such a head when it closes after it, and sends the last chunk
    /// (`0` CRLF CRLF) anyway when it does not, which a keep-alive client takes for the next response.
    /// libmicrohttpd is not writing to the connection (the request has just been read), and closes
    /// it when told the request failed.
    func sendHead(of head: HTTPResponse, to request: ConnectionContext) -> MHD_Result {
        var head = head
        head.headers = request.responseHeaders.applied(to: head.headers)
        request.answering(with: head)
        _ = Self.wire(head, chunked: true).withUnsafeBytes {
            send(request.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        }
        return .NO
    }
}

extension ServerCore {
    /// One pass of the watchdog: cuts request heads and bodies past their deadline, and ends the waits of
    /// clients that hung up. libmicrohttpd does not watch a suspended connection's socket, so
    /// without this a hung-up client's wait would hold its slot until its own deadline.
    func watch() {
        let headSeconds = tracker.headerSeconds
        tracker.sweep { overdue, client in
            let (seconds, head) = switch overdue {
            case .line: (tracker.idleSeconds + headSeconds, HTTPRequestHead(clientAddress: client))
            case .head(let path): (headSeconds, HTTPRequestHead(path: path, clientAddress: client))
            case .body(let method, let path):
                (bodyTimeout, HTTPRequestHead(method: method, path: path, clientAddress: client))
            }
            return Self.wire(respond(to: .requestTimeout(seconds: seconds), head))
        }
        // The lists are copied under the core lock and peeked at outside it: with thousands of
        // waiters the peeks take milliseconds, which libmicrohttpd's threads must not wait for.
        // Each peek happens under its connection's own lock, and only while it is suspended.
        let (suspended, streams) = state.withLock { (Array($0.suspended.values), Array($0.streams.values)) }
        for request in suspended where request.whileSuspended(Self.hungUp) {
            // Cancelled work ends its wait at once and answers; the answer finds the socket closed.
            request.cancel()
        }
        for stream in streams where stream.whileSuspended(Self.hungUp) { stream.finish() }
    }

    /// Whether the peer closed its end (or reset it). Unread bytes mean it is still there.
    static func hungUp(_ fd: Int32) -> Bool {
        guard fd >= 0 else { return false }
        var byte: UInt8 = 0
        do throws(SystemCallError) {
            return try retryingInterrupts("recv") { recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) } == 0
        } catch {
            return !error.wouldBlock
        }
    }

    /// A response as bytes on the wire, closing the connection.
    /// - Parameter chunked: the head only, of a body that would be chunked (the answer to HEAD).
    static func wire(_ response: HTTPResponse, chunked: Bool = false) -> [UInt8] {
        let reason = MHD_get_reason_phrase_for(UInt32(response.status)).map { String(cString: $0) } ?? ""
        var head = "HTTP/1.1 \(response.status) \(reason)\r\nConnection: close\r\n"
        for field in response.headers { head += "\(field.name): \(field.value)\r\n" }
        if chunked { return Array((head + "Transfer-Encoding: chunked\r\n\r\n").utf8) }
        head += "Content-Length: \(response.body.count)\r\n\r\n"
        return Array(head.utf8) + response.body
    }
}

/// The C callbacks handed to libmicrohttpd. They live in a library enum, not in a
/// closure in `main`, so they are nonisolated: libmicrohttpd calls them on its own threads.
enum MHDCallbacks {
    /// `MHD_AccessHandlerCallback`: called once when headers are in, once per body chunk,
    /// once when the request is complete, and once more after each resume.
    static let access: MHD_AccessHandlerCallback = { cls, connection, url, method, version, data, size, context in
        guard let cls, let connection, let size, let context else { return .NO }
        let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
        return core.access(
            connection: connection,
            method: method.map { String(cString: $0) } ?? "GET",
            url: url,
            version: version,
            upload: data,
            uploadSize: size,
            context: context
        )
    }

    /// `MHD_RequestCompletedCallback`: the request is over (answered, or the client left); runs its
    /// finish observers and releases the context retained on the first access call.
    static let completed: MHD_RequestCompletedCallback = { cls, connection, context, code in
        guard let cls else { return }
        let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
        if let connection, let raw = CMicroHTTPD_socket_context(connection) {
            core.tracker.requestCompleted(Unmanaged<ConnectionTracker.Entry>.fromOpaque(raw).takeUnretainedValue())
        }
        guard let context, let raw = context.pointee else { return }
        context.pointee = nil
        let request = Unmanaged<ConnectionContext>.fromOpaque(raw)
        // MHD_REQUEST_TERMINATED_COMPLETED_OK: the whole response went out.
        core.requestCompleted(request.takeUnretainedValue(), completed: code.rawValue == 0)
        request.release()
    }

    /// `MHD_NotifyConnectionCallback`: registers each connection with the tracker when it is
    /// accepted (its id goes in the socket context) and drops it when it closes.
    static let connection: MHD_NotifyConnectionCallback = { cls, connection, socketContext, code in
        guard let cls, let connection, let socketContext else { return }
        let tracker = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().tracker
        if code.rawValue == 0 {  // MHD_CONNECTION_NOTIFY_STARTED
            let client = CMicroHTTPD_client_address(connection).flatMap(SocketAddress.text(of:))
            let entry = tracker.opened(fd: CMicroHTTPD_connection_fd(connection), client: client)
            socketContext.pointee = Unmanaged.passRetained(entry).toOpaque()
        } else if let raw = socketContext.pointee {
            let entry = Unmanaged<ConnectionTracker.Entry>.fromOpaque(raw)
            tracker.closed(entry.takeUnretainedValue())
            entry.release()
            socketContext.pointee = nil
        }
    }

    /// The URI log callback: the request line is in, with its target as sent (libmicrohttpd decodes it
    /// after this call), so the head's deadline starts. Returns nil, which keeps `*con_cls` nil for the
    /// access handler's first call.
    static let requestLine: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?)
        -> UnsafeMutableRawPointer? = { cls, target, connection in
            guard let cls, let connection, let raw = CMicroHTTPD_socket_context(connection) else { return nil }
            let entry = Unmanaged<ConnectionTracker.Entry>.fromOpaque(raw).takeUnretainedValue()
            Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().requestLine(entry, target: target)
            return nil
        }

    /// `MHD_KeyValueIteratorN`: appends one header or query argument to a `KeyValueCollector`.
    /// Header values lose the spaces and tabs at their end (RFC 9110 §5.5; libmicrohttpd drops those
    /// at their start only).
    static let collect: MHD_KeyValueIteratorN = { cls, kind, key, keySize, value, valueSize in
        guard let cls, let key else { return .YES }
        let collector = Unmanaged<KeyValueCollector>.fromOpaque(cls).takeUnretainedValue()
        let name = String(decoding: UnsafeRawBufferPointer(start: key, count: keySize), as: UTF8.self)
        var count = valueSize
        if kind == .HEADER_KIND, let value {
            while count > 0, value[count - 1] == 0x20 || value[count - 1] == 0x09 { count -= 1 }
        }
        let text = value.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: count), as: UTF8.self) }
        collector.pairs.append((name, text ?? ""))
        return .YES
    }
}

extension MHDCallbacks {
    /// `MHD_ContentReaderCallback` of a streamed body.
    static let readStream: MHD_ContentReaderCallback = { cls, _, buffer, max in
        guard let cls, let buffer else { return -2 }
        return Unmanaged<HTTPBodyStream>.fromOpaque(cls).takeUnretainedValue().read(into: buffer, max: max)
    }

    /// `MHD_ContentReaderFreeCallback` of a streamed body: releases the retain taken when queuing.
    static let releaseStream: MHD_ContentReaderFreeCallback = { cls in
        guard let cls else { return }
        let stream = Unmanaged<HTTPBodyStream>.fromOpaque(cls)
        stream.takeUnretainedValue().markClosed()
        stream.release()
    }
}

/// Receives key/value pairs from `MHD_get_connection_values_n` during one synchronous call.
final class KeyValueCollector {
    var pairs: [(String, String)] = []
}
