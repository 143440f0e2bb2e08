import AlertCore
import JSON
import MicroHTTP

/// An RFC 9457 problem: an error that carries its HTTP meaning and renders itself as
/// `application/problem+json`.
struct Problem: Error, Sendable {
    /// One bad input: a body member named by JSON pointer, or a query parameter.
    struct Item: Sendable, Equatable {
        enum Location: Sendable, Equatable {
            case pointer(String)
            case parameter(String)
            case header(String)
        }

        var location: Location
        var detail: String
    }

    var status: Int
    /// `about:blank`, or `urn:alertd:problem:<slug>`.
    var type: String
    var title: String
    var detail: String
    var errors: [Item] = []
    /// The Result that won, on 409.
    var result: AlertResult?
    /// When set, the values of secure fields among them are written as `null` in `result`.
    var secretFields: [AlertField]?
    var headers = HTTPHeaders()

    /// A plain HTTP error (404 for a path, 405, 413): `type` is `about:blank`.
    static func plain(_ status: Int, _ title: String, detail: String) -> Problem {
        Problem(status: status, type: "about:blank", title: title, detail: detail)
    }

    /// An alertd-specific problem, typed `urn:alertd:problem:<slug>`.
    static func alertd(_ status: Int, _ slug: String, _ title: String, detail: String) -> Problem {
        Problem(status: status, type: "urn:alertd:problem:\(slug)", title: title, detail: detail)
    }

    /// 404 for a path that names no resource.
    static func unknownPath(_ path: String) -> Problem {
        .plain(404, "Not Found", detail: "no resource at \(path)")
    }

    /// 405 for a method the path's resource does not answer, with the `Allow` header listing those it does.
    static func methodNotAllowed(_ request: HTTPRequest, allow: String) -> Problem {
        var problem = Problem.plain(405, "Method Not Allowed",
                                    detail: "\(request.method) is not allowed on \(request.path)")
        problem.headers.add("Allow", allow)
        return problem
    }

    static func malformedJSON(_ detail: String) -> Problem {
        .alertd(400, "malformed-json", "Malformed JSON", detail: detail)
    }

    /// The most problems `errors` lists one by one; one more entry counts the rest.
    static let listedErrors = 32

    /// 422 listing the first `listedErrors` problems, then, when there are more, one entry (pointer `""`, the whole
    /// body) saying how many more: a 64 KiB body of bad members must not get a response many times its size.
    static func validation(_ items: [Item]) -> Problem {
        let summary = items.count == 1 ? items[0].detail : "\(items.count) problems; see errors"
        var problem = Problem.alertd(422, "validation-failed", "Validation failed", detail: summary)
        problem.errors = Array(items.prefix(listedErrors))
        if items.count > listedErrors {
            let more = items.count - listedErrors
            problem.errors.append(Item(location: .pointer(""), detail: "\(more) more problem\(more == 1 ? "" : "s") "
                + "not listed (only the first \(listedErrors) are)"))
        }
        return problem
    }

    static func invalidParameter(_ name: String, _ detail: String) -> Problem {
        var problem = Problem.alertd(400, "invalid-parameter", "Invalid query parameter", detail: detail)
        problem.errors = [Item(location: .parameter(name), detail: detail)]
        return problem
    }

    /// The server is stopping; the client may retry shortly (against the next instance).
    static var shuttingDown: Problem {
        var problem = Problem.alertd(503, "shutting-down", "Shutting down",
                                     detail: "alertd is shutting down; retry shortly")
        problem.headers.add("Retry-After", "1")
        return problem
    }

    /// The `application/problem+json` response.
    var response: HTTPResponse {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("type"); writer.write(type)
        writer.key("title"); writer.write(title)
        writer.key("status"); writer.write(status)
        writer.key("detail"); writer.write(detail)
        if !errors.isEmpty {
            writer.key("errors")
            writer.beginArray()
            for item in errors {
                writer.beginObject()
                switch item.location {
                case .pointer(let pointer): writer.key("pointer"); writer.write(pointer)
                case .parameter(let name): writer.key("parameter"); writer.write(name)
                case .header(let name): writer.key("header"); writer.write(name)
                }
                writer.key("detail"); writer.write(item.detail)
                writer.endObject()
            }
            writer.endArray()
        }
        if let result {
            writer.key("result")
            writer.write(result, fields: secretFields)
        }
        writer.endObject()
        var headers = headers
        headers.add("Content-Type", "application/problem+json")
        return HTTPResponse(status: status, headers: headers, body: writer.bytes)
    }
}

extension Problem {
    /// The HTTP meaning of a store error.
    init(_ error: AlertStoreError) {
        switch error.kind {
        case .notFound:
            self = .alertd(404, "not-found", error.message.hasPrefix("no rule") ? "No such rule" : "No such alert",
                           detail: error.message)
        case .alreadyResolved:
            self = .alertd(409, "already-resolved", "Alert already resolved", detail: error.message)
            result = error.result
        case .invalid:
            self = .validation(error.issues.map { Item(location: .pointer($0.pointer), detail: $0.detail) })
        case .tooManyPending:
            self = .alertd(429, "too-many-pending", "Too many pending alerts", detail: error.message)
            headers.add("Retry-After", "1")
        case .shuttingDown:
            self = .shuttingDown
        case .unavailable:
            self = .alertd(503, "write-failed", "Writes unavailable", detail: error.message)
            headers.add("Retry-After", "5")
        case .alreadyVoted:
            self = .alertd(409, "already-voted", "Already voted", detail: error.message)
        case .ruleExists:
            self = .alertd(409, "rule-exists", "Rule exists", detail: error.message)
        case .historyGone:
            self = .alertd(410, "history-gone", "Event history gone", detail: error.message)
        case .keyReused:
            self = .alertd(422, "idempotency-key-reused", "Idempotency key reused", detail: error.message)
            errors = [Item(location: .header("Idempotency-Key"), detail: error.message)]
        }
    }
}

extension Problem {
    /// 503 `write-failed`: the change could not be made durable (the journal failed, or the database is
    /// unreachable), so nothing of the request was acknowledged.
    init(_ failure: JournalFailure) {
        self.init(AlertStoreError.unavailable(failure.reason))
    }
}

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
