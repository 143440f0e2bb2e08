import CMicroHTTPD
import Synchronization

/// The state libmicrohttpd's callbacks reach through their `cls` pointer: the handler,
/// the limits, and the bookkeeping that shutdown needs (suspended and in-flight requests).
final class ServerCore: Sendable {
    struct State {
        /// Requests whose connection is suspended, waiting for deferred work.
        var suspended: [ObjectIdentifier: ConnectionContext] = [:]
        /// Streamed responses still open.
        var streams: [ObjectIdentifier: HTTPBodyStream] = [:]
        /// Requests between their first handler call and their completion callback.
        var inFlight = 0
        /// Set once shutdown starts: every response then closes its connection.
        var draining = false
        /// Set just before the last pass that answers suspended requests: nothing may suspend after it,
        /// since `MHD_stop_daemon` aborts while any connection is suspended.
        var stopping = false
    }

    let handler: any HTTPHandler
    let maxBodySize: Int
    let streamBufferLimit: Int
    let state = Mutex(State())

    init(handler: any HTTPHandler, maxBodySize: Int, streamBufferLimit: Int) {
        self.handler = handler
        self.maxBodySize = maxBodySize
        self.streamBufferLimit = streamBufferLimit
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
            let fresh = ConnectionContext(connection: connection)
            context.pointee = Unmanaged.passRetained(fresh).toOpaque()
            state.withLock { $0.inFlight += 1 }
            if let length = header("Content-Length", of: connection).flatMap(Int.init), length > maxBodySize {
                fresh.phase = .answered
                return queue(handler.response(for: .bodyTooLarge(limit: maxBodySize)), on: connection, close: true)
            }
            return .YES
        }
        let request = Unmanaged<ConnectionContext>.fromOpaque(raw).takeUnretainedValue()
        switch request.phase {
        case .receiving where uploadSize.pointee > 0:
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

    /// Collects a body chunk; past the limit, drops the body and remembers to answer 413.
    private func receive(
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

    /// The request is complete: hand it to the handler and answer or suspend.
    private func dispatch(_ request: ConnectionContext, method: String, url: UnsafePointer<CChar>?) -> MHD_Result {
        let connection = request.connection
        request.isHead = method == "HEAD"
        let message = HTTPRequest(
            method: method,
            path: url.map { String(cString: $0) } ?? "/",
            query: values(of: .GET_ARGUMENT_KIND, on: connection).map { .init(name: $0.0, value: $0.1) },
            headers: HTTPHeaders(values(of: .HEADER_KIND, on: connection).map { ($0.0.lowercased(), $0.1) }),
            body: request.body
        )
        request.body = []
        return perform(handler.handle(message), for: request)
    }

    /// Carries out a reply: queue a response, suspend for deferred work, or start a stream.
    private func perform(_ reply: HTTPReply, for request: ConnectionContext) -> MHD_Result {
        let connection = request.connection
        switch reply {
        case .response(let response):
            request.phase = .answered
            return queue(response, on: connection, close: false)
        case .deferred(let work):
            let refused = state.withLock { state -> Bool in
                guard !state.stopping else { return true }
                state.suspended[ObjectIdentifier(request)] = request
                return false
            }
            if refused {
                request.phase = .answered
                return queue(handler.response(for: .shuttingDown), on: connection, close: true)
            }
            request.phase = .suspended
            MHD_suspend_connection(connection)
            Task {
                let next = await work()
                self.resume(request, with: next)
            }
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

    /// Queues a chunked response whose body `producer` writes, then starts the producer.
    private func startStream(
        _ head: HTTPResponse, _ producer: @escaping @Sendable (HTTPBodyStream) async -> Void,
        on connection: OpaquePointer
    ) -> MHD_Result {
        let stream = HTTPBodyStream(connection: connection, limit: streamBufferLimit) { [weak self] closed in
            self?.state.withLock { _ = $0.streams.removeValue(forKey: ObjectIdentifier(closed)) }
        }
        let context = Unmanaged.passRetained(stream).toOpaque()
        guard let response = MHD_create_response_from_callback(
            UInt64.max, 4096, MHDCallbacks.readStream, context, MHDCallbacks.releaseStream)
        else {
            Unmanaged<HTTPBodyStream>.fromOpaque(context).release()
            return .NO
        }
        defer { MHD_destroy_response(response) }
        for field in head.headers {
            MHD_add_response_header(response, field.name, field.value)
        }
        let draining = state.withLock { state -> Bool in
            state.streams[ObjectIdentifier(stream)] = stream
            return state.draining
        }
        if draining { MHD_add_response_header(response, "Connection", "close") }
        let queued = MHD_queue_response(connection, UInt32(head.status), response)
        Task { await producer(stream) }
        return queued
    }

    /// Ends every open stream (at shutdown): each sends what it buffered, then closes.
    func finishStreams() {
        let open = state.withLock { Array($0.streams.values) }
        for stream in open { stream.finish() }
    }

    /// Stores the reply and resumes the suspended connection, once.
    func resume(_ request: ConnectionContext, with reply: HTTPReply) {
        state.withLock { _ = $0.suspended.removeValue(forKey: ObjectIdentifier(request)) }
        request.resume(with: reply)
    }

    func requestCompleted() {
        state.withLock { $0.inFlight -= 1 }
    }

    /// Creates, fills and queues a libmicrohttpd response.
    private func queue(_ response: HTTPResponse, on connection: OpaquePointer, close: Bool) -> MHD_Result {
        let created = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
                                            .RESPMEM_MUST_COPY)
        }
        guard let created else { return .NO }
        defer { MHD_destroy_response(created) }
        for field in response.headers {
            MHD_add_response_header(created, field.name, field.value)
        }
        if close || state.withLock({ $0.draining }) {
            MHD_add_response_header(created, "Connection", "close")
        }
        return MHD_queue_response(connection, UInt32(response.status), created)
    }

    private func header(_ name: String, of connection: OpaquePointer) -> String? {
        MHD_lookup_connection_value(connection, .HEADER_KIND, name).map { String(cString: $0) }
    }

    private func values(of kind: MHD_ValueKind, on connection: OpaquePointer) -> [(String, String)] {
        let collector = KeyValueCollector()
        withExtendedLifetime(collector) {
            _ = MHD_get_connection_values_n(connection, kind, MHDCallbacks.collect,
                                            Unmanaged.passUnretained(collector).toOpaque())
        }
        return collector.pairs
    }
}
