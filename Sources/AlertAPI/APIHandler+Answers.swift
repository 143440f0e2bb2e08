import AlertCore
import JSON
import Locking
import MicroHTTP

/// `POST /v1/answers`: one button for many alerts at once. Each alert is answered on its own, as
/// `POST /v1/alerts/{id}/response` would (its answer policy, its own exactly-once race), and the answer reports each
/// one's outcome in the order given; one alert's failure never holds up or undoes another's answer.
extension APIHandler {
    /// Most ids one batch answer takes.
    static let batchAnswerLimit = 100

    /// Answers every alert in `ids` with the body's button (and `values`, if given), and answers `200` with
    /// `{"outcomes": [...]}` once every one has its outcome.
    func answerMany(_ route: RouteRequest) throws(Problem) -> HTTPReply {
        let json = try Self.parse(route.request.body)
        let ids = try Self.batchIDs(json)
        let answer = try AnswerDraft(json: json, besides: ["ids"])
        try Self.checkBatchValues(answer.values, limits: store.configuration.limits)
        let (caller, store, metrics) = (route.caller, self.store, self.metrics)
        let pending = PendingResponse()
        let outcomes = Lock<(done: Int, rendered: [[UInt8]])>((0, Array(repeating: [], count: ids.count)))
        for (position, id) in ids.enumerated() {
            submitPermittedAnswer(id, with: answer, by: caller) { outcome in
                if case .success(let alert) = outcome, let result = alert.result {
                    metrics.answered(by: caller.name, after: result.resolvedAt.timeIntervalSince(alert.createdAt))
                }
                let rendered = Self.render(outcome, of: id, for: caller, store: store)
                let all = outcomes.withLock { outcomes -> [[UInt8]]? in
                    outcomes.rendered[position] = rendered
                    outcomes.done += 1
                    return outcomes.done == ids.count ? outcomes.rendered : nil
                }
                guard let all else { return }
                var body = Array(#"{"outcomes":["#.utf8)
                for (index, item) in all.enumerated() {
                    if index > 0 { body.append(UInt8(ascii: ",")) }
                    body += item
                }
                body += Array("]}".utf8)
                pending.deliver(.json(200, body))
            }
        }
        return pending.reply()
    }

    /// The body's `ids`: 1 to `batchAnswerLimit` strings, none empty or given twice.
    private static func batchIDs(_ json: JSONValue) throws(Problem) -> [AlertID] {
        var reader = BodyReader()
        var ids: [AlertID] = []
        guard let body = json.objectValue else { return [] }  // AnswerDraft names the body that is no object.
        if let items = reader.array(body["ids"], at: "/ids") {
            if items.isEmpty || items.count > batchAnswerLimit {
                reader.fail("/ids", "give 1 to \(batchAnswerLimit) ids; got \(items.count)")
            }
            var seen: Set<String> = []
            for (index, item) in items.enumerated() {
                guard let id = reader.item(item, at: "/ids/\(index)") else { continue }
                if id.isEmpty {
                    reader.fail("/ids/\(index)", "an id is not empty")
                } else if !seen.insert(id).inserted {
                    reader.fail("/ids/\(index)", "'\(id)' is given twice")
                } else {
                    ids.append(AlertID(rawValue: id))
                }
            }
        } else if reader.issues.isEmpty {
            reader.fail("/ids", "give the ids of the alerts to answer: 'ids' (an array of 1 to \(batchAnswerLimit))")
        }
        if !reader.issues.isEmpty { throw .validation(reader.issues) }
        return ids
    }

    /// `values` no alert could take (more than `limits.fields`, or one longer than `limits.fieldText`) are the
    /// batch's `422`, as the schema says, rather than each alert's `invalid`.
    private static func checkBatchValues(_ values: [String]?, limits: StoreLimits) throws(Problem) {
        guard let values else { return }
        var issues: [Problem.Item] = []
        if values.count > limits.fields {
            issues.append(Problem.Item(location: .pointer("/values"),
                                       detail: "\(values.count) values given; an alert has at most \(limits.fields)"))
        }
        for (index, value) in values.enumerated() where value.count > limits.fieldText {
            issues.append(Problem.Item(location: .pointer("/values/\(index)"), detail: "value \(index) is "
                + "\(value.count) characters; at most \(limits.fieldText) are allowed"))
        }
        if !issues.isEmpty { throw .validation(issues) }
    }

    /// One alert's outcome: `{"id", "outcome", "result"?, "detail"?}`.
    private static func render(
        _ outcome: Result<Alert, AnswerFailure>, of id: AlertID, for caller: Caller, store: AlertStore
    ) -> [UInt8] {
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.member("id"); writer.write(id.rawValue)
        func finish(_ kind: String, result: AlertResult? = nil, fields: [AlertField]? = nil, detail: String? = nil) {
            writer.member("outcome"); writer.write(kind)
            if let result {
                writer.member("result"); writer.write(result, fields: fields)
            }
            if let detail {
                writer.member("detail"); writer.write(detail)
            }
        }
        switch outcome {
        case .success(let alert) where alert.result == nil:
            finish("voted")
        case .success(let alert):
            finish("answered", result: alert.result)
        case .failure(.refused(let detail)):
            finish("not-allowed", detail: detail)
        case .failure(.store(let error)):
            switch error.kind {
            case .notFound:
                finish("not-found", detail: error.message)
            case .alreadyResolved:
                // The winner, secure values hidden from a caller who may not see them (left out when the alert is
                // gone meanwhile and which fields are secure is no longer known).
                let alert = store.snapshot(of: id)
                finish("already-resolved", result: alert == nil ? nil : error.result,
                       fields: alert.flatMap { caller.seesSecrets(of: $0) ? nil : $0.fields }, detail: error.message)
            case .alreadyVoted:
                finish("already-voted", detail: error.message)
            case .invalid:
                finish("invalid", detail: error.issues.map(\.detail).joined(separator: "; "))
            default:
                finish("failed", detail: error.message)
            }
        }
        writer.endObject()
        return writer.bytes
    }
}
