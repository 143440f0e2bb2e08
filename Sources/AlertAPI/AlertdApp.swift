import AlertCore
import MicroHTTP

/// A running alertd: the store behind the HTTP API. `alertd`'s `main` and the tests build
/// it the same way; tests pass port 0 and read `port` back.
public final class AlertdApp: Sendable {
    /// The alert store the API serves.
    public let store: AlertStore
    private let server: HTTPServer
    private let configuration: AlertdConfiguration
    private let sink: LogSink?
    /// Held here, not by the relay: the store holds the relay and the sender holds the store.
    private let webhooks: WebhookSender
    private let authority: (any StoreAuthorityService)?

    /// Starts serving at once.
    /// - Parameter configuration: address, limits, retention and tokens.
    /// - Throws: `ConfigurationError` when it would serve open beyond loopback without `insecure`;
    ///   `HTTPServerError` when the address cannot be bound.
    /// - Parameter authority: The database that decides every change when several instances share it (`nil`: this
    ///   instance decides): the store starts from its image and it is started feeding the store.
    public init(configuration: AlertdConfiguration, authority: (any StoreAuthorityService)? = nil) throws {
        try configuration.checkExposure()
        self.configuration = configuration
        self.authority = authority
        // The webhook sender needs the store and the store needs the sender; the relay lets the store
        // have its observer before the server takes the first request.
        let relay = ResolutionRelay()
        let store = if let authority {
            AlertStore(configuration: configuration.store, authority: authority, image: authority.image)
        } else {
            AlertStore(configuration: configuration.store) { relay.forward($0) }
        }
        self.store = store
        sink = configuration.logDescriptor.map(LogSink.init(descriptor:))
        let log = AccessLog(sink: sink, logRequests: configuration.logRequests)
        let metrics = Metrics()
        // Webhook connections get descriptors of their own, which serving leaves free.
        let outbound = WebhookSender.connectionLimit(fileLimit: FileLimit.hard)
        let sender = WebhookSender(store: store, metrics: metrics, log: log, connections: outbound)
        webhooks = sender
        relay.connect(sender)
        authority?.start(feeding: store) { relay.forward($0) }
        let handler = APIHandler(store: store, metrics: metrics, log: log, webhooks: configuration.webhooks,
                                 keepAlive: configuration.eventKeepAlive, tokens: configuration.tokens,
                                 waits: ClientWaits(limit: configuration.waitsPerClient))
        var http = configuration.http
        http.reservedDescriptors += outbound
        server = try HTTPServer(configuration: http, handler: handler)
        if configuration.servesOpenBeyondLoopback {
            log.event("warn", "serving without access tokens on a non-loopback address (--insecure)",
                      ["host": configuration.http.host])
        }
    }

    /// The bound port.
    public var port: Int { server.port }

    /// The base URL clients use, e.g. `http://127.0.0.1:8080`.
    public var url: String {
        let host = server.host.contains(":") ? "[\(server.host)]" : server.host
        return "http://\(host):\(port)"
    }

    /// The connection limit in force (after fitting the file-descriptor limit).
    public var connectionLimit: Int { server.connectionLimit }

    /// Graceful stop: stop accepting, wake every waiter (503 or its result), let in-flight
    /// requests finish within the configured grace, stop the transport, then end webhook
    /// deliveries still retrying.
    public func shutdown() async {
        server.beginDraining()
        await store.shutdown()
        await server.shutdown(grace: configuration.shutdownGrace)
        webhooks.stop()
        authority?.stop()
        sink?.flush()
    }
}
