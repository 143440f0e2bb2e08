import AlertCore
import Foundation
import MicroHTTP
import JSON

/// The parameters of `GET /v1/alerts`.
struct ListRequest: Sendable {
    var query: ListQuery
    var index: UInt64?
    var wait: Duration
}

extension APIHandler {
    /// Creates an alert; a retry with the same `Idempotency-Key` and body answers 200 with the
    /// same alert and `Idempotent-Replayed: true`.
    func create(_ prepared: PreparedAlert, by caller: Caller, idempotencyKey: String?) -> HTTPReply {
        onChange({ done in
            store.submitCreate(prepared, owner: caller.name, idempotencyKey: idempotencyKey, done: done)
        }) { created in
            var response = HTTPResponse.json(created.replayed ? 200 : 201, alert: created.alert, for: caller)
            response.headers.add("Location", "/v1/alerts/\(created.alert.id.rawValue)")
            if created.replayed { response.headers.add("Idempotent-Replayed", "true") }
            return response
        }
    }

    /// Lists at once; a list that waits for the store to pass an index is `whenChanged(_:index:)`.
    func list(_ request: ListRequest) -> HTTPReply {
        onStore({ store in store.visibleList(request.query) }, then: Self.listResponse)
    }

    static func listResponse(_ page: AlertPage) -> HTTPResponse {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("index"); writer.write(Int64(clamping: page.index))
        writer.key("alerts")
        writer.beginArray()
        for alert in page.alerts { writer.write(alert, redactingSecrets: true) }
        writer.endArray()
        writer.endObject()
        var response = HTTPResponse.json(200, writer.bytes)
        response.headers.add("X-Alertd-Index", String(page.index))
        return response
    }

    /// Answers an alert in the caller's name; the answer comes back whole to whoever gave it, while a 409's
    /// winning result hides secure values from a caller who may not see them.
    func answer(_ id: AlertID, _ answer: AnswerDraft, by caller: Caller) -> HTTPReply {
        let responder = caller.name
        return onChange({ done in store.submitAnswer(id, with: answer, by: responder, done: done) }, then: { alert in
            let result = alert.result!
            metrics.answered(by: responder, after: result.resolvedAt.timeIntervalSince(alert.createdAt))
            return .json(200, result: result)
        }, problem: { error in
            var problem = Problem(error)
            if problem.result != nil, let alert = store.snapshot(of: id), !caller.seesSecrets(of: alert) {
                problem.secretFields = alert.fields
            }
            return problem
        })
    }

    /// Withdraws an alert in the caller's name: the Result's `responder` names who dismissed it.
    func dismiss(_ id: AlertID, by caller: Caller) -> HTTPReply {
        onChange({ done in store.submitDismissal(id, by: caller.name, done: done) }) { .json(200, result: $0.result!) }
    }

    /// Makes a change, and answers once it is durable and readable here: on this thread at once when the store is
    /// idle and memory only, else on a suspended connection. `respond` turns its value into the response, `problem`
    /// its error (a change that could not be made durable is `503`).
    func onChange<T: Sendable>(
        _ change: (@escaping AlertStore.Completion<T>) -> Void,
        then respond: @escaping @Sendable (T) -> HTTPResponse,
        problem: @escaping @Sendable (AlertStoreError) -> Problem = { Problem($0) }
    ) -> HTTPReply {
        let pending = PendingResponse()
        change { outcome in
            switch outcome {
            case .success(let value): pending.deliver(respond(value))
            case .failure(let error): pending.deliver(problem(error).response)
            }
        }
        return pending.reply()
    }

    /// Runs store work that never waits, and answers once what it shows is durable: on this thread at once when
    /// the store is idle and nothing waits for a commit, else on a suspended connection. `respond` turns its value
    /// into the response, `problem` its error; a change the journal could not make durable is `503`.
    func onStore<T: Sendable>(
        _ work: @escaping @Sendable (isolated AlertStore) throws(AlertStoreError) -> T,
        then respond: @escaping @Sendable (T) -> HTTPResponse,
        problem: @escaping @Sendable (AlertStoreError) -> Problem = { Problem($0) }
    ) -> HTTPReply {
        let pending = PendingResponse()
        store.perform(work) { outcome, failure in
            if let failure { return pending.deliver(Problem(AlertStoreError.unavailable(failure.reason)).response) }
            switch outcome {
            case .success(let value): pending.deliver(respond(value))
            case .failure(let error): pending.deliver(problem(error).response)
            }
        }
        return pending.reply()
    }

    /// `response`, once the last change to the alert it shows is durable (at once when it is).
    func durable(_ response: HTTPResponse, showing alert: Alert) -> HTTPReply {
        let pending = PendingResponse()
        store.whenDurable(alert.sequence) { failure in
            pending.deliver(failure.map { Problem(AlertStoreError.unavailable($0.reason)).response } ?? response)
        }
        return pending.reply()
    }
}

extension HTTPResponse {
    /// An `application/json` response.
    static func json(_ status: Int, _ body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    /// The alert, its secure values hidden unless `caller` may see them.
    static func json(_ status: Int, alert: Alert, for caller: Caller) -> HTTPResponse {
        var writer = JSONWriter()
        writer.write(alert, redactingSecrets: !caller.seesSecrets(of: alert))
        return .json(status, writer.bytes)
    }

    /// 200 with the alert's result, secure values hidden unless `caller` may see them; 204 while pending.
    static func json(resultOf alert: Alert, for caller: Caller) -> HTTPResponse {
        guard let result = alert.result else { return HTTPResponse(status: 204) }
        var writer = JSONWriter()
        writer.write(result, fields: caller.seesSecrets(of: alert) ? nil : alert.fields)
        return .json(200, writer.bytes)
    }

    static func json(_ status: Int, result: AlertResult) -> HTTPResponse {
        var writer = JSONWriter()
        writer.write(result, fields: nil)
        return .json(status, writer.bytes)
    }
}
