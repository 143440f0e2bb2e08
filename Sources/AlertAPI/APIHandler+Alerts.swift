import AlertCore
import Foundation
import JSON
import MicroHTTP

/// The parameters of `GET /v1/alerts`.
struct ListRequest: Sendable {
    /// What the store is asked for: one alert more than the page shows, to tell whether another page follows.
    var query: ListQuery
    var index: UInt64?
    var wait: Duration

    init(query: ListQuery, index: UInt64?, wait: Duration) {
        self.query = query
        self.query.limit += 1
        self.index = index
        self.wait = wait
    }

    /// Most alerts the page shows (`limit`).
    var limit: Int { query.limit - 1 }
}

/// What a read of one alert shows: the alert (`/v1/alerts/{id}`) or its result (`/v1/alerts/{id}/response`).
enum AlertView: Sendable {
    case alert
    case result
}

/// The endpoints on alerts: `/v1/alerts`, `/v1/alerts/{id}` and `/v1/alerts/{id}/response`.
extension APIHandler {
    // MARK: /v1/alerts

    /// `GET /v1/alerts`: lists at once, or, with `index` and `wait`, once the store passes `index`.
    func listAlerts(_ route: RouteRequest) throws(Problem) -> HTTPReply {
        let query = route.query
        let list = ListRequest(
            query: ListQuery(state: try query.state(), presenter: try query.presenter(), owner: route.caller.ownerFilter,
                             limit: try query.integer("limit", in: 1...1000) ?? 100, after: try query.uint64("after")),
            index: try query.index(),
            wait: try query.wait()
        )
        guard let index = list.index, list.wait > .zero else { return self.list(list) }
        let waited = list.query.owner.map { whenOwnChanged(list, index: index, owner: $0) }
            ?? whenChanged(list, index: index)
        return try waiting(waited, if: true, for: route.request, as: route.caller)
    }

    /// `POST /v1/alerts`: creates an alert; a retry with the same `Idempotency-Key` and body answers 200 with the
    /// same alert and `Idempotent-Replayed: true`. The rules and the id need no store: a create holds it only to
    /// store the alert.
    func createAlert(_ route: RouteRequest) throws(Problem) -> HTTPReply {
        let draft = try AlertDraft(json: try Self.parse(route.request.body), webhooks: webhooks)
        let idempotencyKey = try Self.idempotencyKey(route.request)
        let prepared: PreparedAlert
        do {
            prepared = try PreparedAlert(draft, limits: store.configuration.limits)
        } catch {
            throw Problem(error)
        }
        let (caller, notifier) = (route.caller, self.notifier)
        return onChange(.create(prepared, owner: caller.name, idempotencyKey: idempotencyKey)) { created in
            // An alert a rule answered at once wakes nobody.
            if !created.replayed, created.alert.result == nil { notifier?.created(created.alert) }
            var response = HTTPResponse.json(created.replayed ? 200 : 201, alert: created.alert, for: caller)
            response.headers.add("Location", "/v1/alerts/\(created.alert.id.rawValue)")
            if created.replayed { response.headers.add("Idempotent-Replayed", "true") }
            return response
        }
    }

    // MARK: /v1/alerts/{id} and /v1/alerts/{id}/response

    /// `GET /v1/alerts/{id}` (`.alert`) and `GET /v1/alerts/{id}/response` (`.result`): at once, without suspending
    /// the connection, when `wait` is 0 or the alert is resolved; else once it resolves or `wait` passes.
    func read(_ view: AlertView, _ route: RouteRequest) throws(Problem) -> HTTPReply {
        let wait = try route.query.wait()
        let (id, caller) = (route.id, route.caller)
        guard let alert = try readable(id, by: caller) else { throw Problem(AlertStoreError.notFound(id)) }
        if wait == .zero || alert.result != nil {
            let response: HTTPResponse = switch view {
            case .alert: .json(200, alert: alert, for: caller)
            case .result: .json(resultOf: alert, for: caller)
            }
            return durable(response, showing: alert)
        }
        let renders = self.renders
        let waited = whenResolved(id, wait: wait) { alert in
            switch view {
            case .alert: renders.alert(alert, for: caller)
            case .result: renders.result(of: alert, for: caller)
            }
        }
        return try waiting(waited, if: true, for: route.request, as: route.caller)
    }

    /// `DELETE /v1/alerts/{id}`: withdraws an alert in the caller's name: the Result's `responder` names who
    /// dismissed it.
    func dismissAlert(_ route: RouteRequest) throws(Problem) -> HTTPReply {
        let id = route.id
        _ = try readable(id, by: route.caller)
        let responder = route.caller.name
        return onChange(.dismiss(id, by: responder)) { .json(200, result: $0.alert.result!) }
    }

    /// `POST /v1/alerts/{id}/response`: answers an alert in the caller's name, if its answer policy lets the caller
    /// (else 403 `not-a-responder`); the answer comes back whole to whoever gave it, while a 409's winning result
    /// hides secure values from a caller who may not see them. On a quorum alert a vote that leaves it pending is 202
    /// with the alert (its `votes` so far).
    func answerAlert(_ route: RouteRequest) throws(Problem) -> HTTPReply {
        let answer = try AnswerDraft(json: try Self.parse(route.request.body))
        let (id, caller) = (route.id, route.caller)
        let (metrics, store) = (self.metrics, self.store)
        let pending = PendingResponse()
        submitPermittedAnswer(id, with: answer, by: caller) { outcome in
            switch outcome {
            case .success(let alert):
                // A vote on a quorum alert that leaves it pending: 202 with the alert and its votes so far.
                guard let result = alert.result else { return pending.deliver(.json(202, alert: alert, for: caller)) }
                metrics.answered(by: caller.name, after: result.resolvedAt.timeIntervalSince(alert.createdAt))
                pending.deliver(.json(200, result: result))
            case .failure(.refused(let detail)):
                pending.deliver(Problem.notAResponder(detail).response)
            case .failure(.store(let error)):
                var problem = Problem(error)
                if problem.result != nil, let alert = store.snapshot(of: id), !caller.seesSecrets(of: alert) {
                    problem.secretFields = alert.fields
                }
                pending.deliver(problem.response)
            }
        }
        return pending.reply()
    }

    // MARK: lists

    /// Lists at once, once what the page shows is durable.
    func list(_ request: ListRequest) -> HTTPReply {
        let limit = request.limit
        return onRead({ store in store.visibleList(request.query) }) { Self.listResponse($0, limit: limit) }
    }

    /// Most bytes of alerts one answer holds (a page of `GET /v1/alerts`, a long-poll of `/v1/events`): a page
    /// that would hold more ends before the alert that would pass it (never before the first), with `next`.
    static let pageBytes = 1 << 20

    /// The page's first `limit` alerts that fit in `pageBytes`; `next` (the last one's sequence number, for `after`)
    /// when the store had more after them.
    static func listResponse(_ page: AlertPage, limit: Int) -> HTTPResponse {
        let (alerts, shown) = JSONWriter.array(page.alerts.prefix(limit), within: pageBytes) {
            $0.write($1, redactingSecrets: true)
        }
        var body = Array(#"{"index":\#(Int64(clamping: page.index)),"alerts":"#.utf8) + alerts
        if shown < page.alerts.count { body += Array(#","next":\#(page.alerts[shown - 1].sequence)"#.utf8) }
        body.append(UInt8(ascii: "}"))
        var response = HTTPResponse.json(200, body)
        response.headers.add("X-Alertd-Index", String(page.index))
        return response
    }
}
