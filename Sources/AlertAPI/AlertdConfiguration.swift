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

    /// The defaults: 127.0.0.1:8080 and the limits in `docs/DESIGN.md`.
    public init() {}
}
