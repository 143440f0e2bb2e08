import MicroHTTP

extension Problem {
    /// What the transport refused or gave up on, as a problem.
    /// - Parameter failure: what the transport detected.
    init(_ failure: HTTPTransportFailure) {
        switch failure {
        case .bodyTooLarge(let limit):
            self = .alertd(413, "body-too-large", "Request body too large",
                           detail: "request bodies are limited to \(limit) bytes")
        case .shuttingDown:
            self = .shuttingDown
        case .uriTooLong(let limit):
            self = .alertd(414, "uri-too-long", "URI too long", detail: "request targets are limited to \(limit) bytes")
        case .tooManyQueryParameters(let limit):
            self = .alertd(414, "uri-too-long", "URI too long",
                           detail: "request targets are limited to \(limit) query parameters")
        case .headersTooLarge(let limit):
            self = .alertd(431, "headers-too-large", "Request header fields too large",
                           detail: "request header lines are limited to \(limit) bytes in all")
        case .requestTimeout(let seconds):
            self = .alertd(408, "request-timeout", "Request timeout",
                           detail: "the request did not arrive within \(seconds) s; send it at once")
        case .malformedRequest(let reason):
            self = .alertd(400, "malformed-request", "Malformed request", detail: reason)
        case .unsupportedTransferCoding(let reason):
            self = .alertd(501, "unsupported-transfer-coding", "Transfer coding not implemented", detail: reason)
        case .unreadResponses(true, let limit):
            self = .alertd(429, "unread-responses", "Too many unread responses",
                           detail: "answers this client has not read yet hold more than \(limit) bytes; "
                               + "read them, or use fewer connections at once")
            headers.add("Retry-After", "1")
        case .unreadResponses(false, let limit):
            self = .alertd(503, "unread-responses", "Too many unread responses",
                           detail: "answers clients have not read yet hold more than \(limit) bytes; retry shortly")
            headers.add("Retry-After", "1")
        }
    }
}
