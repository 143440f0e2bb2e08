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

    init(path: String) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        switch parts.count {
        case 2 where parts[1] == "healthz": self = .health
        case 2 where parts[1] == "openapi.yaml": self = .openAPI
        case 2 where parts[1] == "metrics": self = .metrics
        case 3 where parts[1] == "v1" && parts[2] == "alerts": self = .alerts
        case 3 where parts[1] == "v1" && parts[2] == "events": self = .events
        case 4 where parts[1] == "v1" && parts[2] == "alerts" && !parts[3].isEmpty:
            self = .alert(AlertID(rawValue: String(parts[3])))
        case 5 where parts[1] == "v1" && parts[2] == "alerts" && !parts[3].isEmpty && parts[4] == "response":
            self = .response(AlertID(rawValue: String(parts[3])))
        default: self = .notFound
        }
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

    func allows(_ method: String) -> Bool {
        allowedMethods.contains(method)
    }
}
