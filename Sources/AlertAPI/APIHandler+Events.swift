import AlertCore
import JSON
import MicroHTTP

/// The parameters of `GET /v1/events`.
struct EventsRequest: Sendable {
    /// The last event the client has (`Last-Event-ID` or `since`); nil means "from now".
    var cursor: UInt64?
    var kinds: Set<AlertEvent.Kind>
    var presenter: String?
    /// Only alerts this producer created; nil for everyone's.
    var owner: String?
    /// Set: answer a JSON array after at most this long (long-poll); nil: a Server-Sent Events stream.
    var wait: Duration?
}

extension APIHandler {
    /// Events in at most this many per batch written to a stream.
    static let eventBatch = 256
    /// Events in at most this many per long-poll answer.
    static let longPollBatch = 1000
    /// How long a stream whose buffer is full may take to drain before its reader is dropped.
    static let slowReaderGrace = Duration.seconds(5)

    /// `GET /v1/events`: a Server-Sent Events stream, or with `wait` a JSON long-poll. A stream's `HEAD` gets its
    /// head at once.
    func followEvents(_ route: RouteRequest) throws(Problem) -> HTTPReply {
        let query = route.query
        let since = try query.uint64("since")
        let events = EventsRequest(
            cursor: try Self.lastEventID(route.request) ?? since,
            kinds: try query.eventKinds(),
            presenter: try query.presenter(),
            owner: route.caller.ownerFilter,
            wait: route.request.queryValue("wait") == nil ? nil : try query.wait()
        )
        let streamOrPoll = HTTPReply.deferred { await self.events(events) }
        return try waiting(streamOrPoll, if: events.waits(head: route.isHead), for: route.request, as: route.caller)
    }

    /// Checks the cursor (410 when too old), then answers a JSON long-poll or starts a stream.
    func events(_ request: EventsRequest) async -> HTTPReply {
        // A producer's cursors are the indexes of its own events (docs/DESIGN.md, "What a producer's index shows").
        let owner = request.owner
        // In a cluster, a cursor from another instance may be ahead of what this one has applied yet.
        if let given = request.cursor, given > (await store.index) { await store.catchUp() }
        let cursor: UInt64
        do {
            cursor = try await store.run { @Sendable (store: isolated AlertStore) throws(AlertStoreError) in
                let cursor = request.cursor ?? store.index(visibleTo: owner)
                try store.checkCursor(cursor, visibleTo: owner)
                return cursor
            }
        } catch {
            return .response(Problem(error).response)
        }
        if let wait = request.wait {
            return .response(await eventsLongPoll(request, after: cursor, wait: wait))
        }
        let head = HTTPResponse(status: 200, headers: [
            "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache", "X-Accel-Buffering": "no",
        ])
        return .stream(head) { stream in await self.pump(request, from: cursor, into: stream) }
    }

    /// `?wait=S`: the matching events after the cursor as a JSON array, waiting up to S for the first.
    private func eventsLongPoll(_ request: EventsRequest, after cursor: UInt64, wait: Duration) async -> HTTPResponse {
        let deadline = ContinuousClock.now + wait
        var seen = cursor
        while true {
            let batch: (events: [AlertEvent], index: UInt64, visible: UInt64)
            do {
                let after = seen
                batch = try await store.run { @Sendable (store: isolated AlertStore) throws(AlertStoreError) in
                    let read = try store.events(after: after, limit: Self.longPollBatch, kinds: request.kinds,
                                                presenter: request.presenter, owner: request.owner)
                    return (read.events, read.index, Self.resumeIndex(after: read, visibleTo: request.owner, in: store))
                }
            } catch {
                return Problem(error).response
            }
            let remaining = deadline - .now
            // Cancelled (the client hung up): answer now. The store's waits return at once in a
            // cancelled task, so waiting on would spin until the deadline, holding the wait slot.
            if !batch.events.isEmpty || remaining <= .zero || Task.isCancelled {
                // At most `pageBytes` of events (never none): the answer ends before the event that would pass them.
                let (body, shown) = JSONWriter.array(batch.events, within: Self.pageBytes) { $0.write($1) }
                // A full batch, or one cut short, may have left events unread: resume from its last one, not the
                // index the caller sees (the store's, or a producer's own newest event's).
                let full = batch.events.count == Self.longPollBatch || shown < batch.events.count
                let index = full ? batch.events[shown - 1].index : max(cursor, batch.visible)
                var response = HTTPResponse.json(200, body)
                response.headers.add("X-Alertd-Index", String(index))
                return response
            }
            seen = batch.index
            do {
                _ = try await store.waitForChange(after: seen, timeout: remaining)
            } catch {
                return Problem(error).response
            }
        }
    }

    /// The index a long-poll answer tells its client to resume from, as of the read that gave `read.events`.
    ///
    /// With a data dir the committed index moves on from the journal's thread, also while the store is held, so it is
    /// taken from the read (`read.index`), never read again: a later index could be past events this answer does not
    /// hold, and a client resuming from it would never get them. A producer's index (the newest event of its own
    /// alerts) may likewise be an event not committed yet; then it is the newest of its events the answer holds.
    static func resumeIndex(
        after read: (events: [AlertEvent], index: UInt64), visibleTo owner: String?, in store: isolated AlertStore
    ) -> UInt64 {
        guard let owner else { return read.index }
        let newest = store.index(visibleTo: owner)
        return newest <= read.index ? newest : read.events.last?.index ?? 0
    }

    /// Feeds a Server-Sent Events stream from the store's event log until the client leaves
    /// (the stream closes and this task is cancelled), falls too far behind, or the server stops.
    private func pump(_ request: EventsRequest, from start: UInt64, into stream: HTTPBodyStream) async {
        metrics.stream(+1)
        defer { metrics.stream(-1) }
        var cursor = start
        // The opening block carries the stream's cursor as its `id`: a client that stores the last id it
        // saw and reconnects with it as `Last-Event-ID` then misses nothing, even when no event came yet.
        // A block without `data` dispatches no event, but still sets the last event id (WHATWG SSE).
        guard await send(Array("retry: 1000\nid: \(start)\n\n".utf8), to: stream) else { return }
        // A keep-alive comment goes out after `keepAlive` without writing, however busy the store is with changes
        // this stream does not show.
        var quietSince = ContinuousClock.now
        while !stream.isClosed, !Task.isCancelled {
            let batch: (events: [AlertEvent], index: UInt64)
            do {
                batch = try await store.events(after: cursor, limit: Self.eventBatch, kinds: request.kinds,
                                               presenter: request.presenter, owner: request.owner)
            } catch {
                // The reader fell behind the kept history: say so, and let it re-list.
                stream.finish(with: Self.sse(event: "gone", data: Problem(error).response.body))
                return
            }
            if batch.events.isEmpty {
                cursor = batch.index
                let quiet = ContinuousClock.now - quietSince
                if quiet >= keepAlive {
                    guard await send(Array(": keep-alive\n\n".utf8), to: stream) else { return }
                    quietSince = .now
                    continue
                }
                do {
                    _ = try await store.waitForChange(after: cursor, timeout: keepAlive - quiet)
                } catch {
                    stream.finish(with: Array(": alertd is shutting down\n\n".utf8))
                    return
                }
                continue
            }
            // Written in pieces that fit the stream's buffer: a batch larger than the limit would
            // never fit, and a reader that keeps up would be dropped as slow.
            var bytes: [UInt8] = []
            for event in batch.events {
                var writer = JSONWriter()
                writer.write(event.alert, redactingSecrets: true)
                let message = Self.sse(id: event.index, event: event.kind.rawValue, data: writer.bytes)
                if !bytes.isEmpty, bytes.count + message.count > stream.limit {
                    guard await send(bytes, to: stream) else { return }
                    bytes.removeAll(keepingCapacity: true)
                }
                bytes += message
            }
            cursor = batch.events.count < Self.eventBatch ? batch.index : batch.events[batch.events.count - 1].index
            guard await send(bytes, to: stream) else { return }
            quietSince = .now
        }
    }

    /// Writes to a stream, giving a full buffer `slowReaderGrace` to drain; a reader that does not
    /// keep up is dropped with a final `dropped` event. Returns whether the stream goes on.
    private func send(_ bytes: [UInt8], to stream: HTTPBodyStream) async -> Bool {
        let deadline = ContinuousClock.now + Self.slowReaderGrace
        while true {
            switch stream.write(bytes) {
            case .written: return true
            case .closed: return false
            case .full where ContinuousClock.now < deadline:
                do {
                    try await Task.sleep(for: .milliseconds(20))
                } catch {
                    return false  // cancelled: the stream closed
                }
            case .full:
                metrics.streamDropped()
                log.event("warn", "dropped a slow event-stream reader", ["buffered": String(stream.bufferedBytes)])
                let detail = #"{"reason":"the client reads events too slowly; reconnect with Last-Event-ID"}"#
                stream.finish(with: Self.sse(event: "dropped", data: Array(detail.utf8)))
                return false
            }
        }
    }

    /// One SSE message; `data` is single-line JSON.
    static func sse(id: UInt64? = nil, event: String, data: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        if let id { bytes += Array("id: \(id)\n".utf8) }
        bytes += Array("event: \(event)\ndata: ".utf8)
        bytes += data
        bytes += [10, 10]
        return bytes
    }
}

extension JSONWriter {
    /// `{"id": index, "type": kind, "alert": Alert}` with secure values left out.
    mutating func write(_ event: AlertEvent) {
        beginObject()
        key("id"); write(Int64(clamping: event.index))
        key("type"); write(event.kind.rawValue)
        key("alert"); write(event.alert, redactingSecrets: true)
        endObject()
    }
}
