import AlertCore
import BuildInfo
import Foundation
import JSON
import Locking
import MicroHTTP
import Synchronization
import SystemCalls

/// Request ids: a random per-process prefix and a counter, so making one costs no system call.
let requestIDs = RequestIDSource()

final class RequestIDSource: Sendable {
    private let prefix = String(UInt32.random(in: 0x1000_0000...UInt32.max), radix: 16)
    private let counter = Atomic<UInt64>(0)

    func next() -> String {
        let number = counter.add(1, ordering: .relaxed).newValue
        return prefix + "-" + String(number, radix: 16)
    }
}

extension APIHandler {
    /// Tags every response `request` gets with its id and the store's instance (`X-Alertd-Instance`: clients compare
    /// it to tell a restart that lost their alerts from one that kept them), and counts and logs the request when the
    /// transport reports its end, whoever answered it: the handler at once, deferred work, a woken waiter, a stream
    /// when it ends, or the transport at shutdown. A request that ended before any response was queued (the client
    /// left first) is logged as 499, nginx's "client closed request".
    func observe(_ request: HTTPRequest, route: String, caller: String?) {
        let id = Self.requestID(request.headers["x-request-id"])
        request.addResponseHeader("X-Request-Id", id)
        request.addResponseHeader("X-Alertd-Instance", store.epoch)
        let (metrics, log, method) = (self.metrics, self.log, Self.methodLabel(request.method))
        let client = request.clientAddress
        request.onFinish { end in
            Self.record(end.status == 0 ? 499 : end.status, after: end.duration, id: id, route: route, method: method,
                        caller: caller, client: client, metrics: metrics, log: log)
        }
    }

    /// Counts a request in metrics and writes its log line.
    static func record(_ status: Int, after elapsed: Duration, id: String, route: String, method: String,
                       caller: String?, client: String?, metrics: Metrics, log: AccessLog) {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        metrics.request(route: route, method: method, status: status, seconds: seconds)
        log.request(id: id, method: method, route: route, status: status, caller: caller, client: client,
                    seconds: seconds)
    }

    /// The client's `X-Request-Id` when it is short and plain, else a fresh one.
    static func requestID(_ given: String?) -> String {
        if let given, (1...64).contains(given.utf8.count),
           given.utf8.allSatisfy({ $0 > 32 && $0 < 127 && $0 != 34 && $0 != 92 }) {
            return given
        }
        return requestIDs.next()
    }
}

/// Structured request and event logs: one JSON object a line with a timestamp, a level and
/// a message. Secure field values are never passed to it, so they can never be logged.
public struct AccessLog: Sendable {
    let sink: LogSink?
    let logRequests: Bool

    /// - Parameters:
    ///   - sink: where lines go; nil for nowhere.
    ///   - logRequests: whether `request` logs each answered request (`event` always logs).
    public init(sink: LogSink?, logRequests: Bool) {
        self.sink = sink
        self.logRequests = logRequests
    }

    /// Logs one answered request: its route template (never the id or query), the name of the token that made it
    /// (never the token), and the client's address (the one a trusted proxy names, behind one).
    func request(id: String, method: String, route: String, status: Int, caller: String?, client: String?,
                 seconds: Double) {
        guard logRequests, let sink else { return }
        var line = Self.begin("info", "request")
        line.member("requestId"); line.write(id)
        line.member("method"); line.write(method)
        line.member("route"); line.write(route)
        line.member("status"); line.write(status)
        if let caller { line.member("caller"); line.write(caller) }
        if let client { line.member("client"); line.write(client) }
        line.member("durationMs"); line.write((seconds * 1_000_000).rounded() / 1000)
        line.endObject()
        sink.write(line)
    }

    /// Logs a notable event with string fields.
    public func event(_ level: String, _ message: String, _ fields: KeyValuePairs<String, String> = [:]) {
        guard let sink else { return }
        var line = Self.begin(level, message)
        for (key, value) in fields {
            line.key(key); line.write(value)
        }
        line.endObject()
        sink.write(line)
    }

    private static func begin(_ level: String, _ message: String) -> JSONWriter {
        var line = JSONWriter(capacity: 192)
        line.beginObject()
        line.member("ts"); line.write(RFC3339.format(Date()))
        line.member("level"); line.write(level)
        line.member("msg"); line.write(message)
        return line
    }
}

/// Where structured log lines go: one JSON object a line, buffered in memory and written in
/// batches every 200 ms by a thread of its own, so logging costs a request no system call and a
/// slow log reader never blocks a request thread.
public final class LogSink: Sendable {
    private let buffer = Lock<[UInt8]>([])
    private let descriptor: Int32
    private let flushing = Lock(())
    private let stopped = Lock(false)

    /// - Parameter descriptor: the file descriptor to write to (2 for standard error).
    public init(descriptor: Int32) {
        self.descriptor = descriptor
        // A thread of its own, not a task: a blocked write to a stalled log reader must not
        // hold one of Swift's cooperative threads.
        let thread = Thread { [weak self] in
            while let sink = self, !sink.stopped.withLock({ $0 }) {
                sink.flush()
                usleep(200_000)
            }
        }
        thread.name = "alertd-log"
        thread.start()
    }

    deinit {
        stopped.withLock { $0 = true }
        flush()
    }

    /// Most bytes buffered between flushes; lines beyond are dropped (not counted) rather
    /// than letting a stalled log reader grow memory without bound.
    static let bufferLimit = 8 * 1024 * 1024

    /// Appends one line (the writer's bytes and a newline). Never writes to the descriptor itself:
    /// a request thread must not block on a slow log reader.
    func write(_ line: JSONWriter) {
        buffer.withLock { buffer in
            guard buffer.count + line.count < Self.bufferLimit else { return }
            line.withUnsafeBytes { buffer.append(contentsOf: $0) }
            buffer.append(10)
        }
    }

    /// Writes out everything buffered, one flush at a time so batches never interleave.
    public func flush() {
        flushing.withLock { _ in
            let bytes = buffer.withLock { buffer -> [UInt8] in
                defer { buffer.removeAll(keepingCapacity: true) }
                return buffer
            }
            var offset = 0
            while offset < bytes.count {
                do throws(SystemCallError) {
                    let written = try retryingInterrupts("write") {
                        bytes[offset...].withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
                    }
                    if written == 0 { return }
                    offset += written
                } catch where error.wouldBlock {
                    usleep(1000)
                } catch {
                    return
                }
            }
        }
    }
}

/// A Prometheus histogram: cumulative buckets, a sum and a count.
struct Histogram: Sendable {
    /// Upper bounds of the buckets, ascending; `+Inf` is implied.
    let bounds: [Double]
    private(set) var counts: [UInt64]
    private(set) var sum = 0.0
    private(set) var count: UInt64 = 0

    init(bounds: [Double]) {
        self.bounds = bounds
        counts = Array(repeating: 0, count: bounds.count)
    }

    mutating func observe(_ value: Double) {
        sum += value
        count += 1
        if let bucket = bounds.firstIndex(where: { value <= $0 }) { counts[bucket] += 1 }
    }

    /// The exposition lines for metric `name`.
    func lines(_ name: String) -> [String] {
        var lines: [String] = []
        var cumulative: UInt64 = 0
        for (bound, bucketCount) in zip(bounds, counts) {
            cumulative += bucketCount
            lines.append("\(name)_bucket{le=\"\(bound)\"} \(cumulative)")
        }
        lines.append("\(name)_bucket{le=\"+Inf\"} \(count)")
        lines.append("\(name)_sum \(sum)")
        lines.append("\(name)_count \(count)")
        return lines
    }
}

/// What the API counts for `GET /metrics`; the store's own counts are read when rendering.
public final class Metrics: Sendable {
    struct RequestKey: Hashable {
        var route: String
        var method: String
        var status: Int
    }

    struct State {
        var requests: [RequestKey: UInt64] = [:]
        var requestSeconds = Histogram(bounds: [0.001, 0.005, 0.025, 0.1, 0.5, 1, 5, 30, 120, 300])
        var answerLatency = Histogram(bounds: [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600])
        var openStreams = 0
        var droppedStreams: UInt64 = 0
        var webhookDeliveries: [String: UInt64] = [:]
        var notifyDeliveries: [String: UInt64] = [:]
        /// Answers by responder name (`""` without tokens); bounded, as names come from the configured tokens.
        var answersByResponder: [String: UInt64] = [:]
        /// The journal's commits, or the cluster's transactions: how long each took, and how many store turns (journal)
        /// or changes (cluster) it held: the batch.
        var commitSeconds = Histogram(bounds: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1])
        var commitBatch = Histogram(bounds: [1, 2, 4, 8, 16, 32, 64, 128, 256, 1024])
    }

    private let state = Lock(State())
    /// Reads the transport's unread answer bytes; set once the server exists (it is made after the handler).
    private let unreadBytes = Lock<(@Sendable () -> Int)?>(nil)

    public init() {}

    /// Has `alertd_http_unread_response_bytes` read `source` from now on.
    public func observeUnreadBytes(_ source: @escaping @Sendable () -> Int) {
        unreadBytes.withLock { $0 = source }
    }

    /// Counts one answered request.
    func request(route: String, method: String, status: Int, seconds: Double) {
        state.withLock {
            $0.requests[RequestKey(route: route, method: method, status: status), default: 0] += 1
            $0.requestSeconds.observe(seconds)
        }
    }

    /// Counts an answer by `responder` (`nil` without tokens) and records how long the alert waited for it.
    func answered(by responder: String?, after seconds: Double?) {
        state.withLock {
            $0.answersByResponder[responder ?? "", default: 0] += 1
            if let seconds { $0.answerLatency.observe(seconds) }
        }
    }

    /// One journal commit, or one cluster transaction with changes: its duration and its batch.
    public func committed(seconds: Double, batch: Int) {
        state.withLock {
            $0.commitSeconds.observe(seconds)
            $0.commitBatch.observe(Double(batch))
        }
    }

    /// An event stream opened (+1) or closed (-1).
    func stream(_ delta: Int) {
        state.withLock { $0.openStreams += delta }
    }

    /// A slow event-stream reader was dropped.
    func streamDropped() {
        state.withLock { $0.droppedStreams += 1 }
    }

    /// A `--notify` delivery attempt ended with `outcome` (`delivered`, `retry`, `failed`, `dropped`).
    func notify(_ outcome: String) {
        state.withLock { $0.notifyDeliveries[outcome, default: 0] += 1 }
    }

    /// A webhook delivery attempt ended with `outcome` (`delivered`, `retry`, `failed`).
    func webhook(_ outcome: String) {
        state.withLock { $0.webhookDeliveries[outcome, default: 0] += 1 }
    }

    /// The Prometheus text exposition (version 0.0.4).
    func render(
        _ store: StoreStatistics, journal: JournalGauges? = nil, cluster: AuthorityStatistics? = nil
    ) -> String {
        let state = state.withLock { $0 }
        var lines: [String] = []
        func family(_ name: String, _ type: String, _ help: String, _ samples: [String]) {
            lines.append("# HELP \(name) \(help)")
            lines.append("# TYPE \(name) \(type)")
            lines.append(contentsOf: samples)
        }
        family("alertd_alerts_created_total", "counter", "Alerts created.", ["alertd_alerts_created_total \(store.created)"])
        family("alertd_alerts_resolved_total", "counter", "Alerts resolved, by resolution.",
               Resolution.allCases.map {
                   "alertd_alerts_resolved_total{resolution=\"\($0.rawValue)\"} \(store.resolutions[$0] ?? 0)"
               })
        family("alertd_alerts_escalated_total", "counter", "Escalation steps alerts took.",
               ["alertd_alerts_escalated_total \(store.escalations)"])
        family("alertd_alerts_pending", "gauge", "Alerts waiting for an answer.", ["alertd_alerts_pending \(store.pending)"])
        family("alertd_alerts_resolved_kept", "gauge", "Resolved alerts still kept for reading.",
               ["alertd_alerts_resolved_kept \(store.resolved)"])
        family("alertd_waiters", "gauge", "Long-polls, blocking queries and event streams waiting on the store.", ["alertd_waiters \(store.waiters)"])
        family("alertd_change_index", "gauge", "The store's change index.", ["alertd_change_index \(store.index)"])
        family("alertd_event_streams", "gauge", "Open event streams.", ["alertd_event_streams \(state.openStreams)"])
        family("alertd_http_unread_response_bytes", "gauge",
               "Bytes of answers queued and not read by their clients yet (8 MiB per address, 256 MiB in all).",
               ["alertd_http_unread_response_bytes \(unreadBytes.withLock { $0 }?() ?? 0)"])
        family("alertd_event_streams_dropped_total", "counter", "Event streams dropped for reading too slowly.",
               ["alertd_event_streams_dropped_total \(state.droppedStreams)"])
        family("alertd_answers_total", "counter", "Answers, by the responder's token name (empty without tokens).",
               state.answersByResponder.merging(store.ruleAnswers.map { ("rule:\($0.key)", $0.value) }, uniquingKeysWith: +)
                   .sorted { $0.key < $1.key }.map { name, count in
                   "alertd_answers_total{responder=\"\(name)\"} \(count)"
               })
        family("alertd_rule_answers_total", "counter", "Alerts answered by a rule, by the rule's name.",
               store.ruleAnswers.sorted { $0.key < $1.key }.map { name, count in
                   "alertd_rule_answers_total{rule=\"\(name)\"} \(count)"
               })
        family("alertd_answer_latency_seconds", "histogram", "Time from creation to answer, for answered alerts.",
               state.answerLatency.lines("alertd_answer_latency_seconds"))
        family("alertd_http_requests_total", "counter", "HTTP requests, by route, method and status.",
               state.requests.sorted { ($0.key.route, $0.key.method, $0.key.status) < ($1.key.route, $1.key.method, $1.key.status) }
                   .map { key, count in
                       "alertd_http_requests_total{route=\"\(key.route)\",method=\"\(key.method)\",status=\"\(key.status)\"} \(count)"
                   })
        family("alertd_http_request_duration_seconds", "histogram", "Time to answer HTTP requests (waits included).",
               state.requestSeconds.lines("alertd_http_request_duration_seconds"))
        family("alertd_webhook_deliveries_total", "counter", "Webhook delivery attempts, by outcome.",
               ["delivered", "retry", "failed"].map {
                   "alertd_webhook_deliveries_total{outcome=\"\($0)\"} \(state.webhookDeliveries[$0] ?? 0)"
               })
        family("alertd_notify_deliveries_total", "counter", "Push (--notify) delivery attempts, by outcome.",
               ["delivered", "retry", "failed", "dropped"].map {
                   "alertd_notify_deliveries_total{outcome=\"\($0)\"} \(state.notifyDeliveries[$0] ?? 0)"
               })
        family("alertd_build_info", "gauge", "Always 1: what runs, alertd's version and git revision, and the "
                   + "libmicrohttpd this process loaded.",
               ["alertd_build_info{version=\"\(BuildInfo.version)\",revision=\"\(BuildInfo.revision)\","
                   + "libmicrohttpd=\"\(HTTPServer.libraryVersion)\"} 1"])
        if let journal {
            family("alertd_journal_commit_seconds", "histogram", "Time to commit a batch to the data dir (fsync included).",
                   state.commitSeconds.lines("alertd_journal_commit_seconds"))
            family("alertd_journal_batch_size", "histogram", "Store turns made durable by one commit (group commit).",
                   state.commitBatch.lines("alertd_journal_batch_size"))
            family("alertd_journal_wal_bytes", "gauge", "Size of the SQLite write-ahead log.",
                   ["alertd_journal_wal_bytes \(journal.walBytes)"])
            family("alertd_journal_write_failed", "gauge", "1 once a commit failed: writes are refused until a restart.",
                   ["alertd_journal_write_failed \(journal.failed ? 1 : 0)"])
        }
        if let cluster {
            family("alertd_cluster_commit_seconds", "histogram",
                   "Time from BEGIN of a transaction with changes on PostgreSQL until it is on disk.",
                   state.commitSeconds.lines("alertd_cluster_commit_seconds"))
            family("alertd_cluster_batch_size", "histogram", "Changes one transaction held (group commit).",
                   state.commitBatch.lines("alertd_cluster_batch_size"))
            family("alertd_cluster_unavailable", "gauge",
                   "1 while PostgreSQL cannot be reached: writes get 503 and /healthz reports degraded.",
                   ["alertd_cluster_unavailable \(cluster.unavailableReason == nil ? 0 : 1)"])
            family("alertd_cluster_reconnects_total", "counter",
                   "Connections to PostgreSQL made again after one was lost or could not be made.",
                   ["alertd_cluster_reconnects_total \(cluster.reconnects)"])
            family("alertd_cluster_events_read_total", "counter",
                   "Events other instances committed, by how this one read them (poll: their NOTIFY was lost or late).",
                   ["alertd_cluster_events_read_total{via=\"notify\"} \(cluster.eventsByNotification)",
                    "alertd_cluster_events_read_total{via=\"poll\"} \(cluster.eventsByPolling)",
                    "alertd_cluster_events_read_total{via=\"writer\"} \(cluster.eventsByWriter)"])
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// The journal's state for `/metrics`.
public struct JournalGauges: Sendable {
    var walBytes: Int64
    var failed: Bool

    public init(walBytes: Int64, failed: Bool) {
        self.walBytes = walBytes
        self.failed = failed
    }
}
