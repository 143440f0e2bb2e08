import CMicroHTTPD
import Synchronization

extension ServerCore {
    /// Queues a chunked response whose body `producer` writes, then starts the producer.
    func startStream(
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
        state.withLock { $0.streams[ObjectIdentifier(stream)] = stream }
        if draining.load(ordering: .relaxed) { MHD_add_response_header(response, "Connection", "close") }
        let queued = MHD_queue_response(connection, UInt32(head.status), response)
        let task = Task { await producer(stream) }
        stream.producer.withLock { $0 = task }
        if stream.isClosed { task.cancel() }
        return queued
    }

    /// Ends every open stream (at shutdown): each sends what it buffered, then closes.
    func finishStreams() {
        let open = state.withLock { Array($0.streams.values) }
        for stream in open { stream.finish() }
    }
}
