/// What a bearer token may do. See docs/SECURITY.md, "Bearer tokens with roles", for the whole table.
public enum Role: String, Sendable, CaseIterable {
    /// Creates alerts, and reads, waits for, lists, follows and dismisses its own, secure values included.
    case producer
    /// Lists, reads and answers every alert; sees secure values only in the answer it gave itself.
    case responder
    /// Everything, secure values and metrics included.
    case admin
    /// `/metrics` and what needs no token (`/healthz`), nothing else: for a Prometheus scraper.
    case monitor

    /// Whether this role may do `action` at all (a producer is further held to its own alerts).
    func may(_ action: Action) -> Bool {
        switch (self, action) {
        case (.admin, _), (_, .readPublic), (.monitor, .readMetrics): true
        case (.monitor, _): false
        case (_, .list), (_, .read), (_, .follow): true
        case (.producer, .create), (.producer, .dismiss): true
        case (.responder, .answer): true
        // The MCP endpoint: its tools hold each call to the role's own rules (a responder may not ask).
        case (.producer, .mcp), (.responder, .mcp): true
        default: false
        }
    }

    /// What a request does, as far as roles are concerned.
    enum Action: Sendable {
        /// `/healthz`, `/openapi.yaml`: no token needed.
        case readPublic
        case create
        case list
        case read
        case answer
        case dismiss
        /// `/v1/events`.
        case follow
        /// `/metrics`.
        case readMetrics
        /// `/v1/rules`: the rules that answer alerts (admins only).
        case manageRules
        /// `POST /mcp`: the MCP tools, each held to the role's rules as its REST route is.
        case mcp

        /// How a 403 names it.
        var phrase: String {
            switch self {
            case .readPublic: "read this"
            case .create: "create alerts"
            case .list: "list alerts"
            case .read: "read alerts"
            case .answer: "answer alerts"
            case .dismiss: "dismiss alerts"
            case .follow: "follow events"
            case .readMetrics: "read metrics"
            case .manageRules: "manage rules"
            case .mcp: "use the MCP endpoint"
            }
        }
    }
}
