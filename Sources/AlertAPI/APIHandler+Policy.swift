import AlertCore
import JSON
import MicroHTTP

/// Answers held to the alert's answer policy (`AnswerPolicy`): the alert as this store shows it decides. Who may
/// answer is fixed at creation and only widens by an escalation step, so a refusal stands unless the alert has steps
/// left: then (a step another instance of a cluster took a moment ago) it is decided again after catching up, as is
/// an alert this store does not know yet (created on another instance a moment ago); the store itself says 404 when
/// it is still unknown.
extension APIHandler {
    /// Answers `id` in the caller's name unless its policy refuses the caller, and calls `done` once with the
    /// resolved alert (durable and readable here) or the problem.
    func submitPermittedAnswer(
        _ id: AlertID, with answer: AnswerDraft, by caller: Caller,
        done: @escaping @Sendable (Result<Alert, AnswerFailure>) -> Void
    ) {
        let store = self.store
        let submit: @Sendable (Alert?) -> Void = { alert in
            if let alert, let refusal = alert.refusal(toAnswer: caller.answerer) {
                return done(.failure(.refused(refusal)))
            }
            store.write(.answer(id, with: answer, by: caller.name)) { outcome in
                done(outcome.map(\.alert).mapError { .store($0) })
            }
        }
        if let alert = store.snapshot(of: id), alert.nextEscalationAt == nil || alert.refusal(toAnswer: caller.answerer) == nil {
            return submit(alert)
        }
        Task {
            await store.catchUp()
            submit(store.snapshot(of: id))
        }
    }
}

/// Why an answer failed: the store said no, or the alert's answer policy did.
enum AnswerFailure: Error, Sendable {
    case store(AlertStoreError)
    /// The sentence saying who may answer instead.
    case refused(String)
}

extension Problem {
    /// 403 `not-a-responder`: the alert's answer policy does not let this token answer it (not named in its
    /// `responders` or `groups`, or its producer under `fourEyes`). Nothing changed.
    static func notAResponder(_ detail: String) -> Problem {
        .alertd(403, "not-a-responder", "Not allowed to answer this alert", detail: detail)
    }
}

extension APIHandler {
    /// `GET /v1/me`: the caller as access control sees it (`name`, `role`, `groups`), so that a client can tell which
    /// alerts it may answer from their `responders`, `groups` and `fourEyes` (the dashboard does). Without tokens:
    /// `name` null, role `admin`.
    func me(_ route: RouteRequest) -> HTTPResponse {
        let caller = route.caller
        var writer = JSONWriter(capacity: 96)
        writer.beginObject()
        writer.member("name")
        if let name = caller.name { writer.write(name) } else { writer.writeNull() }
        writer.member("role"); writer.write(caller.role.rawValue)
        writer.member("groups")
        writer.beginArray()
        for group in caller.groups.sorted() { writer.write(group) }
        writer.endArray()
        writer.endObject()
        return .json(200, writer.bytes)
    }
}
