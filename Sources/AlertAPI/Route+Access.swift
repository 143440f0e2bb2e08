extension Route {
    /// What `method` on this route does, for the role check.
    func action(for method: String) -> Role.Action {
        switch (self, method) {
        case (.health, _), (.openAPI, _), (.notFound, _): .readPublic
        case (.metrics, _): .readMetrics
        case (.events, _): .follow
        case (.alerts, "POST"): .create
        case (.alerts, _): .list
        case (.alert, "DELETE"): .dismiss
        case (.alert, _): .read
        case (.response, "POST"): .answer
        case (.response, _): .read
        }
    }
}
