import AlertAPI
import AlertCore
import MicroHTTP

/// Everything `alertd` can be told: where to listen, transport limits, store limits.
public struct AlertdConfiguration: Sendable {
    /// Address, port, threads and connection limits.
    public var http = HTTPServerConfiguration()
    /// Pending cap and retention of resolved alerts.
    public var store = AlertStore.Configuration()
    /// How long shutdown waits for in-flight requests.
    public var shutdownGrace: Duration = .seconds(10)
    /// How often an idle event stream sends a keep-alive comment.
    public var eventKeepAlive: Duration = .seconds(15)
    /// Most waiting requests (long-polls, event streams) one client address may hold; 0: no limit.
    public var waitsPerClient = 512
    /// Which callback destinations producers may give, and deliveries may connect to (default: public addresses).
    public var webhooks = WebhookPolicy.external
    /// Whether each request is logged (as JSON, on standard error).
    public var logRequests = true
    /// Where structured logs go: a file descriptor, or nil for none (tests).
    public var logDescriptor: Int32? = 2
    /// The bearer tokens and their roles; none means every request may do everything.
    public var tokens = AccessTokens()
    /// The tokens file, read again on `AlertdApp.reloadTokens()` (SIGHUP); nil for none.
    public var tokensFile: String?
    /// The tokens given in `ALERTD_TOKENS`, kept across reloads of the tokens file.
    public var environmentTokens = AccessTokens()
    /// Without tokens: the `Origin`s whose requests are served (a request with any other `Origin` gets 403).
    public var allowedOrigins: [String] = []
    /// Without tokens: `Host` names served besides `localhost`, IP addresses and the listening host.
    public var allowedHosts: [String] = []
    /// Whether to serve without tokens on a non-loopback address anyway.
    public var insecure = false
    /// The directory of the SQLite journal; `nil`: memory only, alerts do not survive a restart.
    public var dataDirectory: String?
    /// The PostgreSQL URL several instances share; `nil`: this instance decides alone (see `dataDirectory`).
    public var database: String?
    /// With `database`: how long a webhook delivery an instance claimed stays its own after each attempt; once it
    /// passes (the instance died), another instance claims the delivery and makes it again.
    public var webhookLease: Duration = .seconds(60)
    /// `POST /mcp`: whether secure values reach the agent, and how often a waiting call reports progress.
    public var mcp = MCPOptions()

    /// Where every new alert is pushed (`--notify`, `--notify-webhook`).
    public var notifyTargets: [NotifyTarget] = []
    /// What ntfy targets are sent to be let publish (`--notify-token-file`, `ALERTD_NOTIFY_TOKEN`); nil: nothing.
    public var notifyCredential: NotifyCredential?
    /// The file `notifyCredential` is read from (`--notify-token-file`), once the command line is read.
    public var notifyCredentialFile: String?
    /// The responder that notifications' links name (`--notify-responder`); nil: links need a sign-in.
    public var notifyResponder: String?
    /// The base URL of links in notifications (`--public-url`); nil: alertd's own address.
    public var publicURL: String?
    /// How long single-alert links stay usable (`--link-lifetime`).
    public var linkLifetime: Duration = .seconds(24 * 3600)

    /// The defaults: 127.0.0.1:8080 and the limits in `docs/DESIGN.md`.
    public init() {}
}
