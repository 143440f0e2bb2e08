import AlertCore
import AlertModel

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
