import Foundation
import JSON
import Locking

#if canImport(Glibc)
import Glibc
#endif

/// One Server-Sent Events message (a block of fields ended by a blank line).
public struct SSEMessage: Sendable, Equatable, CustomStringConvertible {
    public var id: String?
    public var event: String
    public var data: String

    /// `id` as a number (alertd's ids are change indexes).
    public var index: UInt64? { id.flatMap { UInt64($0) } }

    public var description: String { "id=\(id ?? "-") event=\(event) data=\(data.prefix(120))" }
}

/// What an `SSEClient` reads, in order.
public enum SSEItem: Sendable, CustomStringConvertible {
    /// The response head (status and lower-cased headers; for a response that is not a
    /// chunked stream, its whole body too).
    case head(WireResponse)
    /// A dispatched message.
    case message(SSEMessage)
    /// A comment line (`: text`), without the colon and one leading space.
    case comment(String)
    /// A block without `data` (no message is dispatched): its `retry:` (the reconnection time in
    /// milliseconds) and its `id:`, which still sets the last event id a reconnect sends.
    case retry(Int?, id: String?)
    /// The last item: why reading stopped.
    case closed(SSEClient.Ending)

    public var description: String {
        switch self {
        case .head(let response): "head \(response.status)"
        case .message(let message): "message \(message)"
        case .comment(let text): "comment '\(text)'"
        case .retry(let milliseconds, let id): "retry \(milliseconds.map(String.init) ?? "-") id \(id ?? "-")"
        case .closed(let ending): "closed \(ending)"
        }
    }
}

/// A small streaming HTTP/1.1 client for `text/event-stream`, for tests.
///
/// It connects to 127.0.0.1, sends one GET, and reads on its own thread (the socket blocks,
/// and Swift's cooperative pool must stay free for the in-process server). It decodes chunked
/// transfer encoding and the SSE wire format and delivers what it reads through `items`.
/// It can stop reading for a while (a slow reader: the server's writes back up) and hang up. The one SSE reader of
/// the tests: `SSEDecoder` is its decoding, for a reader that manages its own connections.
public final class SSEClient: @unchecked Sendable {
    // `@unchecked Sendable` invariant: `fd` is written in `init` only; the reader thread owns
    // the parse state; `control` (a mutex) holds everything other threads touch; `iterator`
    // is used by one consuming task at a time (the test's).

    /// Why reading stopped.
    public enum Ending: Sendable, Equatable {
        /// The chunked body ended (the server finished the stream).
        case endOfBody
        /// The server closed the connection.
        case connectionClosed
        /// `disconnect()` was called.
        case disconnected
        /// Nothing arrived for `idleTimeout` seconds, or `lifetime` passed.
        case timedOut
        /// The bytes did not parse as HTTP.
        case protocolError(String)
    }

    private struct Control {
        var paused = false
        var stopped = false
        var bytesRead = 0
        var raw: [UInt8] = []
        var received: [SSEMessage] = []
    }

    /// Everything read, in order; iterate it once (or use `next()`).
    public let items: AsyncStream<SSEItem>
    private let continuation: AsyncStream<SSEItem>.Continuation
    private var iterator: AsyncStream<SSEItem>.Iterator
    private let control = Lock(Control())
    private let fd: Int32
    private let idleTimeout: Double
    private let deadline: Date

    /// Connects and sends `GET target` (or `method` with `body`); reading starts at once (or when `resume()` is
    /// called, if `paused`).
    /// - Parameters:
    ///   - port: the server's port on 127.0.0.1.
    ///   - target: the request target, e.g. `/v1/events?since=0`.
    ///   - method, body: the request's method and body (`POST /mcp` answers with a stream too).
    ///   - headers: extra request headers, e.g. `("Last-Event-ID", "42")`; an `Accept` replaces the default
    ///     `text/event-stream`.
    ///   - receiveBuffer: `SO_RCVBUF` in bytes, set before connecting (small: the kernel holds
    ///     little for a reader that stops reading).
    ///   - maxSegment: `TCP_MAXSEG` in bytes, set before connecting: a small segment size keeps the
    ///     server's send buffer small too (the kernel sizes it by segments), so a reader that stops
    ///     reading backs the server's writes up after little data.
    ///   - paused: start without reading anything.
    ///   - idleTimeout: give up (`.timedOut`) after this long without a byte while reading.
    ///   - lifetime: give up after this long in all.
    public init(port: Int, target: String = "/v1/events", method: String = "GET", body: [UInt8]? = nil,
         headers: [(String, String)] = [], receiveBuffer: Int? = nil,
         maxSegment: Int? = nil, paused: Bool = false, idleTimeout: Double = 20, lifetime: Double = 60) throws {
        (items, continuation) = AsyncStream.makeStream(of: SSEItem.self)
        iterator = items.makeAsyncIterator()
        self.idleTimeout = idleTimeout
        deadline = Date().addingTimeInterval(lifetime)
        fd = try Self.socket(receiveBuffer: receiveBuffer, maxSegment: maxSegment)
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        if !headers.contains(where: { $0.0.lowercased() == "accept" }) { head += "Accept: text/event-stream\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        let request = Array((head + "\r\n").utf8) + (body ?? [])
        control.withLock { $0.paused = paused }
        // Connecting and sending block too: they happen on the reader's thread.
        let thread = Thread { [self] in
            if let failure = Self.connect(fd, port: port, request: request) {
                finish(.protocolError(failure))
            } else {
                readLoop()
            }
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    deinit {
        disconnect()
    }

    // MARK: control

    /// Stops reading (the server's writes back up once the kernel buffers fill).
    public func pause() {
        control.withLock { $0.paused = true }
    }

    /// Reads again.
    public func resume() {
        control.withLock { $0.paused = false }
    }

    /// Hangs up: the reader stops and the connection is shut down.
    public func disconnect() {
        // Under the lock: the reader closes `fd` under it too, so this never shuts down a reused descriptor.
        control.withLock { control in
            if !control.stopped { shutdown(fd, Int32(SHUT_RDWR)) }
            control.stopped = true
        }
    }

    /// Bytes of the body read so far.
    public var bytesRead: Int { control.withLock { $0.bytesRead } }

    /// The decoded body (chunk framing removed) read so far, as text.
    public var rawText: String { control.withLock { String(decoding: $0.raw, as: UTF8.self) } }

    /// The messages read so far, whether consumed or not: for a test that polls rather than iterates.
    public var received: [SSEMessage] { control.withLock { $0.received } }

    // MARK: consuming

    /// The next item, or nil after `.closed`.
    public func next() async -> SSEItem? {
        await iterator.next()
    }

    /// The response head; fails unless it is the first item.
    public func head() async throws -> WireResponse {
        guard case .head(let response)? = await next() else {
            throw RawHTTPError(description: "no response head")
        }
        return response
    }

    /// Reads the head (which must be `200 text/event-stream`) and the `retry:` block the stream
    /// starts with: after this the server has fixed the stream's cursor (the block's id).
    public func expectStreamStart() async throws -> WireResponse {
        let response = try await head()
        guard response.status == 200, response.headers["content-type"]?.hasPrefix("text/event-stream") == true else {
            throw RawHTTPError(description: "not an event stream: \(response)")
        }
        guard case .retry? = await next() else { throw RawHTTPError(description: "the stream does not start with retry:") }
        return response
    }

    /// The next message, skipping comments; nil when the stream ends first.
    public func nextMessage() async -> SSEMessage? {
        while let item = await next() {
            if case .message(let message) = item { return message }
            if case .closed = item { return nil }
        }
        return nil
    }

    /// The next `count` messages (fewer if the stream ends first).
    public func messages(_ count: Int) async -> [SSEMessage] {
        var found: [SSEMessage] = []
        while found.count < count, let message = await nextMessage() { found.append(message) }
        return found
    }

    /// Messages until one satisfies `last` (included), or the stream ends.
    public func messages(through last: (SSEMessage) -> Bool) async -> [SSEMessage] {
        var found: [SSEMessage] = []
        while let message = await nextMessage() {
            found.append(message)
            if last(message) { break }
        }
        return found
    }

    /// Everything until the stream ends, the ending included.
    public func rest() async -> [SSEItem] {
        var found: [SSEItem] = []
        while let item = await next() { found.append(item) }
        return found
    }

    // MARK: reading (on the reader thread)

    private func readLoop() {
        var reader = SSEDecoder()
        var ending = Ending.timedOut
        var lastByte = Date()
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        loop: while true {
            let (paused, stopped) = control.withLock { ($0.paused, $0.stopped) }
            if stopped { ending = .disconnected; break }
            if Date() > deadline { ending = .timedOut; break }
            if paused {
                Thread.sleep(forTimeInterval: 0.01)
                lastByte = Date()
                continue
            }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                lastByte = Date()
                do {
                    let (items, body) = try reader.feed(buffer[0..<n])
                    control.withLock { control in
                        control.bytesRead += body.count
                        control.raw += body
                        for case .message(let message) in items { control.received.append(message) }
                    }
                    for item in items { continuation.yield(item) }
                    if reader.finished { ending = .endOfBody; break loop }
                } catch {
                    ending = .protocolError("\(error)")
                    break
                }
                continue
            }
            if n == 0 {
                ending = control.withLock { $0.stopped } ? .disconnected : .connectionClosed
                break
            }
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                if Date().timeIntervalSince(lastByte) > idleTimeout { ending = .timedOut; break }
                continue
            }
            ending = control.withLock { $0.stopped } ? .disconnected : .connectionClosed
            break
        }
        finish(ending)
    }

    /// Delivers the ending and closes the socket.
    private func finish(_ ending: Ending) {
        continuation.yield(.closed(ending))
        continuation.finish()
        control.withLock {
            $0.stopped = true
            close(fd)
        }
    }

    /// A TCP socket with the options that must be set before connecting.
    private static func socket(receiveBuffer: Int?, maxSegment: Int?) throws -> Int32 {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawHTTPError(description: "socket: \(errno)") }
        // Short receive time-outs let the reader notice pause, disconnect and its deadlines.
        var tv = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var sendTimeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &sendTimeout, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer.map(Int32.init) {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        if var size = maxSegment.map(Int32.init) {
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_MAXSEG, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        return fd
    }

    /// Connects to 127.0.0.1:`port` and sends `request`; nil when done, else what failed.
    private static func connect(_ fd: Int32, port: Int, request: [UInt8]) -> String? {
        let connected = Loopback.connect(fd, port: port)
        guard connected == 0 else { return "connect to port \(port): errno \(errno)" }
        let sent = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return sent == request.count ? nil : "could not send the request (errno \(errno))"
    }
}

/// Decodes an HTTP/1.1 response carrying Server-Sent Events, incrementally: the head, chunked framing, then the SSE
/// fields (https://html.spec.whatwg.org/multipage/server-sent-events.html). A response that is not chunked (an
/// error) is read whole by its `Content-Length` and ends the decoding (`finished`).
public struct SSEDecoder: Sendable {
    private var pending: [UInt8] = []
    private var head: WireResponse?
    private var chunked = false
    private var contentLength: Int?
    /// Bytes left in the current chunk, or nil when a chunk-size line comes next.
    private var chunkLeft: Int?
    /// The body ended (the last chunk, or the whole body of a response that is not a stream).
    public private(set) var finished = false
    // SSE state.
    private var line: [UInt8] = []
    private var lastWasCR = false
    private var id: String?
    private var event: String?
    private var data: [String] = []
    private var retry: Int?

    public init() {}

    /// Takes bytes off the wire; returns the items completed and the body bytes decoded.
    public mutating func feed(_ bytes: ArraySlice<UInt8>) throws -> ([SSEItem], [UInt8]) {
        pending += bytes
        var items: [SSEItem] = []
        var body: [UInt8] = []
        if head == nil {
            let separator: [UInt8] = [13, 10, 13, 10]
            guard let end = pending.indices.first(where: { pending[$0...].starts(with: separator) }) else {
                return ([], [])
            }
            var response = try RawHTTP.parse(Array(pending[..<(end + 4)]))
            pending.removeFirst(end + 4)
            chunked = response.headers["transfer-encoding"]?.lowercased().contains("chunked") == true
            contentLength = response.headers["content-length"].flatMap(Int.init)
            if !chunked {
                // Not a stream (an error, for example): read the whole body, then stop.
                guard let length = contentLength else { throw RawHTTPError(description: "no framing: \(response)") }
                head = response
                if pending.count < length { return ([], []) }
                response.body = Array(pending[..<length])
                finished = true
                return ([.head(response)], response.body)
            }
            head = response
            items.append(.head(response))
        } else if !chunked {
            guard var response = head, let length = contentLength, pending.count >= length else { return ([], []) }
            response.body = Array(pending[..<length])
            finished = true
            return ([.head(response)], response.body)
        }
        while !finished {
            if let left = chunkLeft {
                if left == 0 {
                    // The CRLF after a chunk's data.
                    guard pending.count >= 2 else { break }
                    guard pending[0] == 13, pending[1] == 10 else { throw RawHTTPError(description: "bad chunk end") }
                    pending.removeFirst(2)
                    chunkLeft = nil
                    continue
                }
                guard !pending.isEmpty else { break }
                let take = min(left, pending.count)
                let piece = Array(pending[..<take])
                pending.removeFirst(take)
                chunkLeft = left - take
                body += piece
                items += sse(piece)
                continue
            }
            guard let crlf = pending.indices.first(where: { pending[$0...].starts(with: [13, 10]) }) else { break }
            let sizeText = String(decoding: pending[..<crlf], as: UTF8.self)
                .split(separator: ";").first.map(String.init) ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                throw RawHTTPError(description: "bad chunk size '\(sizeText)'")
            }
            pending.removeFirst(crlf + 2)
            if size == 0 {
                finished = true
                break
            }
            chunkLeft = size
        }
        return (items, body)
    }

    /// Splits body bytes into lines and lines into SSE items.
    private mutating func sse(_ bytes: [UInt8]) -> [SSEItem] {
        var items: [SSEItem] = []
        for byte in bytes {
            if byte == 10 && lastWasCR {
                lastWasCR = false
                continue
            }
            lastWasCR = byte == 13
            if byte == 10 || byte == 13 {
                if let item = take(String(decoding: line, as: UTF8.self)) { items.append(item) }
                line.removeAll(keepingCapacity: true)
            } else {
                line.append(byte)
            }
        }
        return items
    }

    /// One complete line (https://html.spec.whatwg.org/multipage/server-sent-events.html).
    private mutating func take(_ line: String) -> SSEItem? {
        if line.isEmpty {
            defer { id = nil; event = nil; data = []; retry = nil }
            // No data: nothing is dispatched (WHATWG), but a retry or an id still counts.
            if data.isEmpty {
                return retry == nil && id == nil ? nil : .retry(retry, id: id)
            }
            return .message(SSEMessage(id: id, event: event ?? "message", data: data.joined(separator: "\n")))
        }
        if line.hasPrefix(":") {
            var text = line.dropFirst()
            if text.hasPrefix(" ") { text = text.dropFirst() }
            return .comment(String(text))
        }
        let name: Substring
        var value: Substring
        if let colon = line.firstIndex(of: ":") {
            name = line[..<colon]
            value = line[line.index(after: colon)...]
            if value.hasPrefix(" ") { value = value.dropFirst() }
        } else {
            name = line[...]
            value = ""
        }
        switch name {
        case "id": id = String(value)
        case "event": event = String(value)
        case "data": data.append(String(value))
        case "retry": retry = Int(value)
        default: break
        }
        return nil
    }
}

extension SSEMessage {
    /// The `data` parsed as JSON (`.null` when it is not JSON).
    public var json: JSONValue {
        (try? JSONParser.parse(Array(data.utf8))) ?? .null
    }
}
