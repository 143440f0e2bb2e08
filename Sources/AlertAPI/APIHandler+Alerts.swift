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
    func create(_ draft: AlertDraft, by caller: Caller, idempotencyKey: String?) -> HTTPReply {
        let owner = caller.name
        return onStore({ store throws(AlertStoreError) in
            try store.create(draft, owner: owner, idempotencyKey: idempotencyKey)
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

    /// Answers an alert; the answer comes back whole to whoever gave it, while a 409's winning result
    /// hides secure values from a caller who may not see them.
    func answer(_ id: AlertID, _ answer: AnswerDraft, by caller: Caller) -> HTTPReply {
        onStore({ store throws(AlertStoreError) in
            let result = try store.answer(id, with: answer)
            return (result, store.snapshot(of: id)?.createdAt)
        }, then: { answered in
            if let createdAt = answered.1 {
                metrics.answered(after: answered.0.resolvedAt.timeIntervalSince(createdAt))
            }
            return .json(200, result: answered.0)
        }, problem: { error in
            var problem = Problem(error)
            if problem.result != nil, let alert = store.snapshot(of: id), !caller.seesSecrets(of: alert) {
                problem.secretFields = alert.fields
            }
            return problem
        })
    }

    func dismiss(_ id: AlertID) -> HTTPReply {
        onStore({ store throws(AlertStoreError) in try store.dismiss(id) }) { .json(200, result: $0) }
    }

    /// Runs store work that never waits at once on this thread when the store is idle, else on a suspended
    /// connection; either way `respond` turns its value into the response, `problem` its error.
    private func onStore<T: Sendable>(
        _ work: @escaping @Sendable (isolated AlertStore) throws(AlertStoreError) -> T,
        then respond: @escaping @Sendable (T) -> HTTPResponse,
        problem: @escaping @Sendable (AlertStoreError) -> Problem = { Problem($0) }
    ) -> HTTPReply {
        do {
            if let value = try store.now(work) { return .response(respond(value)) }
        } catch {
            return .response(problem(error).response)
        }
        return later { () async throws(Problem) in
            do throws(AlertStoreError) {
                return respond(try await store.run(work))
            } catch {
                throw problem(error)
            }
        }
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
