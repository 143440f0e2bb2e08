import AlertCore

/// The resource a path names.
enum Route: Equatable {
    case health
    case openAPI
    case alerts
    case alert(AlertID)
    case response(AlertID)
    case events
    case metrics
    case notFound

    /// Matches whole-string literals first (a memory comparison each), then the one pattern
    /// with an id; never splits the path into pieces. `path` is as sent, not percent-decoded: an
    /// encoded `/` or NUL is part of a segment (an id that does not exist), never another route.
    init(path: String) {
        switch path {
        case "/healthz": self = .health
        case "/openapi.yaml": self = .openAPI
        case "/v1/alerts": self = .alerts
        case "/v1/events": self = .events
        case "/metrics": self = .metrics
        default: self = Self.alertRoute(path) ?? .notFound
        }
    }

    /// `/v1/alerts/{id}` or `/v1/alerts/{id}/response`.
    private static func alertRoute(_ path: String) -> Route? {
        let prefix = "/v1/alerts/"
        guard path.hasPrefix(prefix) else { return nil }
        let rest = path.utf8.dropFirst(prefix.utf8.count)
        guard let slash = rest.firstIndex(of: UInt8(ascii: "/")) else {
            return rest.isEmpty ? nil : .alert(AlertID(rawValue: String(Substring(rest))))
        }
        let id = rest[..<slash]
        guard !id.isEmpty, rest[rest.index(after: slash)...].elementsEqual("response".utf8) else { return nil }
        return .response(AlertID(rawValue: String(Substring(id))))
    }

    /// The methods this resource answers, for `Allow`.
    var allowedMethods: [String] {
        switch self {
        case .health, .openAPI, .events, .metrics: ["GET", "HEAD"]
        case .alerts, .response: ["GET", "HEAD", "POST"]
        case .alert: ["GET", "HEAD", "DELETE"]
        case .notFound: []
        }
    }

    /// The route's path template, a bounded label for metrics and logs.
    var template: String {
        switch self {
        case .health: "/healthz"
        case .openAPI: "/openapi.yaml"
        case .alerts: "/v1/alerts"
        case .alert: "/v1/alerts/{id}"
        case .response: "/v1/alerts/{id}/response"
        case .events: "/v1/events"
        case .metrics: "/metrics"
        case .notFound: "unknown"
        }
    }

    /// The alert this route names, if it names one.
    var alertID: AlertID? {
        switch self {
        case .alert(let id), .response(let id): id
        default: nil
        }
    }

    func allows(_ method: String) -> Bool {
        allowedMethods.contains(method)
    }
}
