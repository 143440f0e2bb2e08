import MicroHTTP

/// The request headers endpoints read; each bad value is a 400 problem naming the header.
extension APIHandler {
    /// `Idempotency-Key`: 1–255 visible ASCII characters, or nil when absent.
    static func idempotencyKey(_ request: HTTPRequest) throws(Problem) -> String? {
        guard let key = request.headers["idempotency-key"] else { return nil }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ $0 > 32 && $0 < 127 }) else {
            var problem = Problem.alertd(400, "invalid-header", "Invalid header",
                                         detail: "Idempotency-Key must be 1–255 visible ASCII characters")
            problem.errors = [Problem.Item(location: .header("Idempotency-Key"), detail: problem.detail)]
            throw problem
        }
        return key
    }

    /// `Last-Event-ID`: the id of the last event an EventSource received, or nil.
    static func lastEventID(_ request: HTTPRequest) throws(Problem) -> UInt64? {
        guard let text = request.headers["last-event-id"], !text.isEmpty else { return nil }
        guard let value = QueryParameters.digits(text).flatMap({ UInt64($0) }) else {
            var problem = Problem.alertd(400, "invalid-header", "Invalid header",
                                         detail: "Last-Event-ID must be an event id (a whole number); got '\(text)'")
            problem.errors = [Problem.Item(location: .header("Last-Event-ID"), detail: problem.detail)]
            throw problem
        }
        return value
    }
}
