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
