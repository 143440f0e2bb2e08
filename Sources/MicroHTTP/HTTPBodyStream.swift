import CMicroHTTPD
import Locking

/// The writing end of a response body sent as it is produced (chunked), such as a
/// Server-Sent Events stream. Written from the producer's task, or from any thread (`onClose(_:)` tells a writer
/// without a task when to stop). While nothing is buffered the connection is suspended, so an
/// idle stream holds no thread; a write resumes it.
///
/// `@unchecked Sendable` invariant: `connection` is only used to suspend (from libmicrohttpd's
/// content-reader callback, its own thread) and to resume (from any thread, which
/// libmicrohttpd allows); `state` (a `StreamState`, behind a mutex) makes each resume
/// follow exactly one suspend. Every other field lives behind the mutex or never changes.
public final class HTTPBodyStream: @unchecked Sendable {
    /// What became of a write.
    public enum WriteResult: Sendable, Equatable {
        /// Buffered; it will be sent.
        case written
        /// The buffer limit would be exceeded: the client reads too slowly.
        case full
        /// The client went away or the stream was finished.
        case closed
    }

    private let state: Lock<StreamState>
    private let connection: OpaquePointer
    /// Most bytes buffered for a client before writes answer `.full`.
    public let limit: Int

    private let didClose: @Sendable (HTTPBodyStream) -> Void
    /// The connection's socket, for noticing a client that hangs up while the stream is idle.
    let fd: Int32
    /// The task writing the body; cancelled once the stream is closed, so a producer waiting
    /// for something to write learns at once that nobody reads any more. Not kept once it has returned (a
    /// producer that writes from callbacks returns at once): a finished task still holds its memory.
    private let producer = Lock<(task: Task<Void, Never>?, returned: Bool)>((nil, false))

    /// Keeps the producer's task, unless it has returned already.
    func started(_ task: Task<Void, Never>) {
        producer.withLock { producer in
            if !producer.returned { producer.task = task }
        }
    }

    /// The producer returned: its task is let go.
    func producerReturned() {
        producer.withLock { $0 = (nil, true) }
    }
    /// What runs once the stream closes (`onClose(_:)`); nil once it has closed.
    private let closeHandlers = Lock<[@Sendable () -> Void]?>([])

    init(connection: OpaquePointer, limit: Int, onClose: @escaping @Sendable (HTTPBodyStream) -> Void) {
        self.connection = connection
        self.limit = limit
        state = Lock(StreamState(limit: limit))
        didClose = onClose
        fd = CMicroHTTPD_connection_fd(connection)
    }

    /// Calls `test` with the socket while the connection is suspended (nothing buffered), under
    /// the mutex: the socket stays open meanwhile, since libmicrohttpd never closes a suspended
    /// connection and a write resumes it only after taking the mutex.
    /// - Returns: what `test` said, or false when the connection is not suspended.
    func whileSuspended(_ test: (Int32) -> Bool) -> Bool {
        state.withLock { state in state.phase == .idle && test(fd) }
    }

    /// Buffers `bytes` for sending.
    /// - Parameter bytes: the next piece of the body.
    /// - Returns: `.full` (nothing buffered) when the client has not read enough of what was sent before.
    @discardableResult
    public func write(_ bytes: [UInt8]) -> WriteResult {
        append(bytes, force: false)
    }

    /// Buffers a last piece even past the limit, then finishes the stream.
    /// - Parameter bytes: the final piece (for example an event saying why the stream ends).
    public func finish(with bytes: [UInt8] = []) {
        append(bytes, force: true, finish: true)
    }

    /// Adds a handler run once when the stream closes (the client left, the stream finished and was sent, or the
    /// server stopped): for a producer that writes from callbacks rather than from its task, which may have
    /// returned long before. Runs at once, on this thread, when the stream has closed already. Keep it short.
    public func onClose(_ handler: @escaping @Sendable () -> Void) {
        let closed = closeHandlers.withLock { handlers -> Bool in
            guard handlers != nil else { return true }
            handlers?.append(handler)
            return false
        }
        if closed { handler() }
    }

    /// Bytes written but not yet taken by libmicrohttpd for sending.
    public var bufferedBytes: Int {
        state.withLock { $0.pending }
    }

    /// Bytes libmicrohttpd took for sending, in all.
    var sentBytes: Int {
        state.withLock { $0.delivered }
    }

    /// Whether the client is gone or the stream finished; writes then answer `.closed`.
    public var isClosed: Bool {
        state.withLock { $0.isClosed }
    }

    @discardableResult
    private func append(_ bytes: [UInt8], force: Bool, finish: Bool = false) -> WriteResult {
        switch state.withLock({ $0.write(bytes, force: force, finish: finish) }) {
        case .written(let resume):
            if resume {
                let connection = connection
                HeldCalls.call { MHD_resume_connection(connection) }  // with the batch's other resumes (`HeldCalls`)
            }
            return .written
        case .full:
            return .full
        case .closed:
            return .closed
        }
    }

    /// libmicrohttpd asks for the next bytes: copy what is buffered, end the stream, or
    /// suspend the connection until the next write.
    func read(into target: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        state.withLock { state in
            switch state.read(into: UnsafeMutableRawBufferPointer(start: target, count: max)) {
            case .bytes(let count):
                return count
            case .end:
                return -1  // MHD_CONTENT_READER_END_OF_STREAM
            case .suspend:
                // Under the mutex: a write resumes only after taking it, so after this suspend.
                MHD_suspend_connection(connection)
                return 0
            }
        }
    }

    /// libmicrohttpd is done with the response: the client left or the stream ended.
    func markClosed() {
        state.withLock { $0.close() }
        didClose(self)
        producer.withLock { $0.task }?.cancel()
        let handlers = closeHandlers.withLock { handlers in
            defer { handlers = nil }
            return handlers ?? []
        }
        for handler in handlers { handler() }
    }
}

/// The state of a streamed response body, shared by the producer's writes and libmicrohttpd's reads, as a state
/// machine: each transition says what the caller must do (resume or suspend the connection). `HTTPBodyStream` runs
/// it under its mutex and carries out the actions; the tests run it alone.
struct StreamState {
    enum Phase: Equatable {
        /// libmicrohttpd reads what is buffered as it can send it.
        case streaming
        /// Nothing buffered: the connection is suspended until the next write, so an idle stream holds no thread.
        case idle
        /// Finished by the producer: what is buffered goes out, then the end of the stream.
        case finishing
        /// libmicrohttpd is done with the response (the client left, or the stream ended).
        case closed
    }

    /// What a write tells the caller.
    enum Write: Equatable {
        /// Buffered; resume the connection when `resume` (it was idle).
        case written(resume: Bool)
        /// Not buffered: the client has not read enough of what was written before.
        case full
        /// Not buffered: the stream is finished or closed.
        case closed
    }

    /// What a read tells the caller.
    enum Read: Equatable {
        /// This many bytes were copied: send them.
        case bytes(Int)
        /// Nothing is buffered: suspend the connection until the next write.
        case suspend
        /// Everything was sent and the stream is finished or closed: end it.
        case end
    }

    private(set) var phase = Phase.streaming
    /// Bytes written; those before `sent` went to libmicrohttpd already.
    private var buffer: [UInt8] = []
    private var sent = 0
    /// Bytes taken by libmicrohttpd in all.
    private(set) var delivered = 0
    /// Most bytes buffered before writes answer `.full`.
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// Bytes written but not yet taken by libmicrohttpd.
    var pending: Int { buffer.count - sent }

    /// Whether writes answer `.closed`: the producer finished, or the client left.
    var isClosed: Bool { phase == .finishing || phase == .closed }

    /// Buffers `bytes`; past `limit` only when `force`. With `finish`, the stream ends after them.
    mutating func write(_ bytes: [UInt8], force: Bool = false, finish: Bool = false) -> Write {
        guard !isClosed else { return .closed }
        if !force, pending + bytes.count > limit { return .full }
        if sent > 0, sent >= buffer.count / 2 {
            buffer.removeFirst(sent)
            sent = 0
        }
        buffer.append(contentsOf: bytes)
        let resume = phase == .idle
        phase = finish ? .finishing : .streaming
        return .written(resume: resume)
    }

    /// libmicrohttpd asks for up to `target.count` bytes.
    mutating func read(into target: UnsafeMutableRawBufferPointer) -> Read {
        if pending > 0 {
            let count = min(target.count, pending)
            buffer.withUnsafeBytes { bytes in
                target.baseAddress!.copyMemory(from: bytes.baseAddress! + sent, byteCount: count)
            }
            sent += count
            delivered += count
            return .bytes(count)
        }
        if isClosed { return .end }
        phase = .idle
        return .suspend
    }

    /// libmicrohttpd is done with the response.
    mutating func close() {
        phase = .closed
    }
}
