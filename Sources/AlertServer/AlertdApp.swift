import AlertAPI
import AlertCluster
import AlertCore
import AlertJournal
import Foundation
import Locking
import MicroHTTP

#if canImport(Glibc)
import Glibc
#endif

/// A running alertd, assembled here and nowhere else: from its configuration, the log sink, the journal (SQLite,
/// `--data-dir`) or the cluster (PostgreSQL, `--database`), the store on it, the webhook sender, the API's routes and
/// the HTTP server. `alertd`'s `main` and the tests build it the same way; tests pass port 0 and read `port` back,
/// or build it without a server (`Transport.inProcess`) and send it requests with `respond(to:)`.
public final class AlertdApp: Sendable {
    /// How requests reach the app.
    public enum Transport: Sendable {
        /// The HTTP server, on `configuration.http`.
        case http
        /// No server and no socket: requests reach the routes through `respond(to:)` alone. For tests of what the
        /// API answers that are not about the transport.
        case inProcess
    }

    /// The alert store the API serves.
    public let store: AlertStore
    /// How requests reach it.
    public let transport: Transport
    /// The routes; `respond(to:)` answers through them in process.
    private let handler: APIHandler
    /// The HTTP server; nil in process.
    private let server: HTTPServer?
    private let configuration: AlertdConfiguration
    private let sink: LogSink?
    /// Held here, not by the relay: the store holds the relay and the sender holds the store.
    private let webhooks: WebhookSender
    /// Pushes new alerts to `--notify` targets; nil without any.
    private let notifier: Notifier?
    /// The tokens in force; `reloadTokens()` replaces them.
    private let tokens: LiveTokens
    private let log: AccessLog
    /// The SQLite journal in `--data-dir`, or `nil` when alerts live in memory only.
    private let journal: SQLiteJournal?
    private let authority: (any StoreAuthorityService)?

    /// Starts serving at once.
    /// - Parameter configuration: address, limits, retention, tokens, and where alerts are kept: in memory, in the
    ///   journal of `dataDirectory`, or in the PostgreSQL of `database`, which decides every change when several
    ///   instances share it (the store starts from its image and it is started feeding the store).
    /// - Throws: `ConfigurationError` when it would serve open beyond loopback without `insecure`;
    ///   `JournalOpenError` when the data dir cannot be used (held by another alertd, corrupt, newer, unwritable);
    ///   `ClusterError` when the database cannot be used; `HTTPServerError` when the address cannot be bound.
    /// - Parameter transport: with a server (alertd), or without (tests of the routes).
    public init(configuration: AlertdConfiguration, transport: Transport = .http) throws {
        try configuration.checkExposure()
        self.configuration = configuration
        self.transport = transport
        let authority = try configuration.database.map {
            try PostgresCluster(url: $0, configuration: configuration.store, webhookLease: configuration.webhookLease,
                                notifies: !configuration.notifyTargets.isEmpty)
        }
        self.authority = authority
        // The webhook sender needs the store and the store needs the sender; the relay lets the store
        // have its observer before the server takes the first request.
        let relay = ResolutionRelay()
        let store: AlertStore
        let journal: SQLiteJournal?
        if let authority {
            journal = nil
            store = AlertStore(configuration: configuration.store, authority: authority, image: authority.image)
        } else if let directory = configuration.dataDirectory {
            let (opened, image) = try SQLiteJournal.open(
                directory: directory, eventHistory: configuration.store.eventHistory)
            journal = opened
            store = AlertStore(configuration: configuration.store, journal: opened, image: image) {
                relay.forward($0)
            }
        } else {
            journal = nil
            store = AlertStore(configuration: configuration.store) { relay.forward($0) }
        }
        self.journal = journal
        self.store = store
        sink = configuration.logDescriptor.map(LogSink.init(descriptor:))
        let log = AccessLog(sink: sink, logRequests: configuration.logRequests)
        self.log = log
        let tokens = LiveTokens(configuration.tokens)
        self.tokens = tokens
        let metrics = Metrics()
        // Webhook connections get descriptors of their own, which serving leaves free.
        let outbound = WebhookSender.connectionLimit(fileLimit: FileLimit.hard)
        let sender = WebhookSender(store: store, metrics: metrics, log: log, policy: configuration.webhooks,
                                   connections: outbound)
        webhooks = sender
        relay.connect(sender)
        if let journal, let directory = configuration.dataDirectory {
            journal.observeCommits { metrics.committed(seconds: $0.seconds, batch: $0.appends) }
            let sink = self.sink
            journal.observeFailure { failure in
                log.event("error", "the journal failed: writes get 503 until alertd is restarted; reads go on",
                          ["dataDir": directory, "reason": failure.reason])
                sink?.flush()
            }
        }
        var gauges: (@Sendable () -> JournalGauges)?
        if let journal {
            gauges = { JournalGauges(walBytes: journal.statistics.walBytes, failed: journal.failure != nil) }
        }
        var clusterGauges: (@Sendable () -> AuthorityStatistics)?
        if let authority {
            authority.observeCommits { metrics.committed(seconds: $0.seconds, batch: $0.changes) }
            clusterGauges = { authority.statistics }
            for warning in authority.durabilityWarnings { log.event("warn", warning) }
            let sink = self.sink
            authority.observeDivergence { reason in
                log.event("error", "the cluster's database no longer holds what this instance showed: writes get 503 "
                          + "and no more events are applied until alertd is restarted; reads go on",
                          ["reason": reason])
                sink?.flush()
            }
        }
        authority?.start(feeding: store) { relay.forward($0) }
        // Links are used once across restarts too (and across instances): the data dir or the cluster records them.
        let usedLinks: (any LinkUseRecord)? = try authority.map { ClusterLinkRecord(links: $0.links) }
            ?? configuration.dataDirectory.map { directory throws(ConfigurationError) in
                try UsedLinks(directory: directory)
            }
        let pages = PageAccess(key: try Self.pageKey(configuration, cluster: authority),
                               linkLifetime: TimeInterval(configuration.linkLifetime.components.seconds),
                               usedLinks: usedLinks)
        // Notifications are sent at least once across restarts (and an instance's end): the data dir or the cluster
        // keeps those not done.
        let fileOutbox = try configuration.notifyTargets.isEmpty ? nil
            : configuration.dataDirectory.map { directory throws(ConfigurationError) in
                try NotifyOutbox(directory: directory)
            }
        let outbox: (any NotifyRecord)? = authority?.notifications.map(ClusterNotifyRecord.init) ?? fileOutbox
        let notifier = configuration.notifyTargets.isEmpty ? nil : Notifier(
            targets: configuration.notifyTargets, sender: sender, pages: pages,
            publicURL: configuration.publicURL, responder: configuration.notifyResponder,
            tokensOpen: configuration.tokens.isEmpty, metrics: metrics, log: log, outbox: outbox,
            credential: configuration.notifyCredential)
        self.notifier = notifier
        if let name = configuration.notifyResponder, !configuration.tokens.isEmpty,
           !configuration.tokens.hasResponder(named: name) {
            log.event("warn", "--notify-responder names no token that may answer: notifications' links will be refused",
                      ["responder": name])
        }
        handler = APIHandler(store: store, metrics: metrics, log: log, webhooks: configuration.webhooks,
                             keepAlive: configuration.eventKeepAlive, tokens: tokens,
                             allowedOrigins: configuration.allowedOrigins, allowedHosts: configuration.allowedHosts,
                             listenHost: configuration.http.host, waitsPerClient: configuration.waitsPerClient,
                             journalGauges: gauges, clusterGauges: clusterGauges, mcp: configuration.mcp,
                             pages: pages, notifier: notifier)
        var http = configuration.http
        http.reservedDescriptors += outbound
        do {
            server = transport == .http ? try HTTPServer(configuration: http, handler: handler) : nil
        } catch {
            journal?.close()
            authority?.stop()
            throw error
        }
        notifier?.serving(at: url)
        // Notifications a restart interrupted go out again (at least once); in a cluster, those of an instance that
        // ended, once their lease passes.
        if let notifier, let fileOutbox { notifier.resend(fileOutbox.outstanding, from: store) }
        if let notifier { authority?.notifications?.start { notifier.resend($0, from: store) } }
        if let server { metrics.observeUnreadBytes { [weak server] in server?.unreadResponseBytes ?? 0 } }
        // Restored alerts whose timeout passed meanwhile expire now, and deliveries not yet done start again.
        store.run({ store in store.resume() }, then: { _ in })
        if configuration.servesOpenBeyondLoopback {
            log.event("warn", "serving without access tokens on a non-loopback address (--insecure)",
                      ["host": configuration.http.host])
        }
    }

    /// The key of the responder page's links and CSRF tokens: the cluster's, kept in PostgreSQL for every instance;
    /// kept in the data dir; this process's own in memory.
    private static func pageKey(_ configuration: AlertdConfiguration, cluster: PostgresCluster?) throws -> PageKey {
        if let cluster { return PageKey.shared(cluster.links.key) }
        guard let directory = configuration.dataDirectory else { return .ephemeral() }
        return try PageKey.stored(in: directory)
    }

    /// Reads the tokens file again and serves with its tokens (and those of `ALERTD_TOKENS`) from the next request
    /// on, all at once; what SIGHUP does. A file that does not load (unreadable, a bad entry, no tokens) changes
    /// nothing: the tokens in force stay, and the log says why. Without a tokens file it logs that there is nothing
    /// to reload. Requests already authenticated (a long-poll, an event stream) keep going.
    /// - Returns: whether new tokens are in force.
    @discardableResult
    public func reloadTokens() -> Bool {
        guard let file = configuration.tokensFile else {
            log.event("info", "SIGHUP: nothing to reload (no tokens file)")
            sink?.flush()
            return false
        }
        let loaded: AccessTokens
        do {
            loaded = try configuration.loadTokens()
        } catch {
            log.event("error", "SIGHUP: kept the tokens in force; the tokens file did not load",
                      ["file": file, "reason": error.description])
            sink?.flush()
            return false
        }
        let replaced = tokens.replace(with: loaded)
        log.event(replaced ? "info" : "error", replaced ? "SIGHUP: reloaded the tokens file"
                    : "SIGHUP: kept the tokens in force; alertd started without tokens and stays open",
                  ["file": file, "tokens": String(loaded.count)])
        sink?.flush()
        return replaced
    }

    /// The bound port; 0 in process.
    public var port: Int { server?.port ?? 0 }

    /// The base URL clients use, e.g. `http://127.0.0.1:8080`.
    public var url: String {
        let host = server?.host ?? configuration.http.host
        return "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    /// The connection limit in force (after fitting the file-descriptor limit).
    public var connectionLimit: Int { server?.connectionLimit ?? 0 }

    /// Answers `request` through the routes in this process, as the server would have them answer it, without a
    /// socket (`HTTPHandler.respond(to:)`): what the transport does itself (framing, limits, hang-ups, the
    /// `Content-Length`) is not part of it.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        await handler.respond(to: request)
    }

    /// Graceful stop: stop accepting, wake every waiter (503 or its result), let in-flight
    /// requests finish within the configured grace, stop the transport, then end webhook
    /// deliveries still retrying.
    public func shutdown() async {
        server?.beginDraining()
        await store.shutdown()
        await server?.shutdown(grace: configuration.shutdownGrace)
        notifier?.stop()
        webhooks.stop()
        authority?.stop()
        journal?.close()
        sink?.flush()
    }
}

/// Hands resolved alerts from the store to the webhook sender, which is made after the store.
///
/// It holds the sender itself (weakly), not a closure: a function value behind the lock was re-abstracted on every
/// `withLock` read and written back one thunk deeper, so each forward grew a chain of thunks until the stack
/// overflowed.
private final class ResolutionRelay: Sendable {
    /// A nominal box, so that reading the lock's value copies a reference and nothing else.
    private struct Target {
        weak var sender: WebhookSender?
    }

    private let target = Lock(Target())

    /// Sets where alerts go; the relay does not keep `sender` alive.
    func connect(_ sender: WebhookSender) {
        target.withLock { $0.sender = sender }
    }

    /// Passes one resolved alert on.
    func forward(_ alert: Alert) {
        target.withLock { $0.sender }?.deliver(alert)
    }
}

/// The cluster's record of used links (`ClusterLinks`, in PostgreSQL) as the page asks for one.
private struct ClusterLinkRecord: LinkUseRecord {
    let links: ClusterLinks

    /// Nothing: the database answers for every link, whichever instance used it.
    var restored: [String: Date] { [:] }

    func claim(_ nonce: String, expires: Date) -> LinkClaim {
        switch links.claim(nonce, expiresAt: Int64(expires.timeIntervalSince1970.rounded(.up)),
                           now: Int64(Date().timeIntervalSince1970)) {
        case .claimed: .claimed
        case .usedBefore: .usedBefore
        case .unrecorded: .unrecorded
        }
    }
}

/// The cluster's outbox of notifications (`ClusterNotifications`, in PostgreSQL) as the notifier tells one.
private struct ClusterNotifyRecord: NotifyRecord {
    let notifications: ClusterNotifications

    /// Nothing to do: the create's own transaction added the alert's row.
    func started(_ id: AlertID) {}

    func finished(_ id: AlertID) {
        notifications.finished(id)
    }
}

/// The process's limit on open file descriptors.
private enum FileLimit {
    /// The hard `RLIMIT_NOFILE`, which `HTTPServer` raises the soft one to; `Int.max` when unlimited or unknown.
    static var hard: Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_max != rlim_t.max else {
            return .max
        }
        return Int(limit.rlim_max)
    }
}
