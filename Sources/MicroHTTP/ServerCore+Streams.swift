import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
            MHD_add_response_header(response, field.name, field.value)
        }
        request.responseHeaders.forEach { MHD_add_response_header(response, $0.name, $0.value) }
        state.withLock { $0.streams[ObjectIdentifier(stream)] = stream }
        if draining.load(ordering: .relaxed) { MHD_add_response_header(response, "Connection", "close") }
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
