import AlertClient
import Foundation

extension DashboardState {
    /// Applies one event; returns what the event loop must do.
    mutating func handle(_ event: DashboardEvent) -> [DashboardEffect] {
        now = Date()
        switch event {
        case .terminal(.ready(let rows, let columns, let glyphs)):
            screen = (rows, columns, glyphs)
        case .terminal(.resized(let rows, let columns)):
            screen?.rows = rows
            screen?.columns = columns
        case .terminal(.key(let key)):
            return handle(key)
        case .terminal(.failed(let reason)):
            return [.fail(reason)]
        case .interrupted:
            return [.quit]
        case .tick:
            break
        case .identified(let identity):
            self.identity = identity
        case .listed(let list, let presenter):
            // A list from the watcher of an earlier filter, still on its way when `p` changed it.
            guard presenter == self.presenter else { return [] }
            return listed(list)
        case .listFailed(let reason, let retryIn):
            // The status line says so once the server is lost: what it said before (an answer sent) is old news.
            if case .reconnecting = connection {} else { notice = nil }
            connection = .reconnecting(reason: reason, retryIn: retryIn)
        case .answered(let id, let result):
            answered(id, result)
        case .answerFailed(let id, let error):
            return answerFailed(id, error)
        case .fetched(let alert, let purpose):
            return fetched(alert, purpose)
        case .fetchFailed(let id, let purpose, let error):
            return fetchFailed(id, purpose, error)
        case .answeredMany(let button, let outcomes):
            answeredMany(button, outcomes)
        case .answerManyFailed(let ids, let error):
            answerManyFailed(ids, error)
        case .ruleMade(let rule):
            // Short enough for 80 columns with a usual title: the rule's name must stay in view.
            notice = .success("rule \(rule.name) made: \(RulesCommand.matchText(rule.match)) \u{2192} \(rule.button) "
                + "from now on")
        case .ruleFailed(let name, let error):
            notice = .warning("answered, but the rule \(name) was not made: \(error)")
        }
        return []
    }

    private mutating func listed(_ list: RemoteAlertList) -> [DashboardEffect] {
        connection = .connected
        let before = alerts
        let arrived = replaceAlerts(with: list)
        // Alerts that left the pending list without our answer: someone else resolved them (another dashboard,
        // curl, the producer, a timeout), or the server lost them (a restart). Each is fetched to log how and by
        // whom. A new presenter filter empties the list first, so it starts afresh.
        let pending = Set(alerts.map(\.id))
        var effects: [DashboardEffect] = arrived && bell ? [.bell] : []
        // Marked alerts answered together (`answering`) are logged when their outcomes come back.
        for alert in before where !pending.contains(alert.id) && answering[alert.id] == nil {
            if let open, open.alert.id == alert.id {
                if open.sending { continue }
                self.open = nil
                notice = .warning("\(open.alert.displayTitle): no longer pending")
            }
            effects.append(.fetch(alertID: alert.id, purpose: .resolution(title: alert.displayTitle)))
        }
        return effects
    }

    private mutating func answered(_ id: String, _ result: RemoteResult) {
        let alert = open?.alert.id == id ? open?.alert : alerts.first { $0.id == id }
        if open?.alert.id == id { open = nil }
        removeAlert(id)
        guard let alert else { return }
        let entry = LogEntry(alert: alert, result: result, elsewhere: false)
        appendLog(entry)
        notice = .success("\(entry.title): \(entry.button)")
    }

    private mutating func answerFailed(_ id: String, _ error: AlertClientError) -> [DashboardEffect] {
        guard var open, open.alert.id == id else { return [] }
        if error.isConflict, let result = error.problem?.result {
            resolvedElsewhere(open.alert, result)
            self.open = nil
            removeAlert(id)
        } else if error.isNotFound {
            notice = .warning("\(open.alert.displayTitle): no longer on the server")
            self.open = nil
            removeAlert(id)
        } else {
            open.sending = false
            self.open = open
            notice = .warning("could not send the answer: \(error) (choose again to retry)")
        }
        return []
    }

    private mutating func fetched(_ alert: RemoteAlert, _ purpose: DashboardEffect.FetchPurpose) -> [DashboardEffect] {
        switch purpose {
        case .resolution:
            if let result = alert.result { resolvedElsewhere(alert, result) }
            return []
        case .details:
            guard var open, open.alert.id == alert.id else { return [] }
            if !alert.isPending, let result = alert.result {
                self.open = nil
                resolvedElsewhere(alert, result)
                return []
            }
            open.fillDetails(from: alert)
            self.open = open
            return answerIfChosen()
        }
    }

    private mutating func fetchFailed(
        _ id: String, _ purpose: DashboardEffect.FetchPurpose, _ error: AlertClientError
    ) -> [DashboardEffect] {
        switch purpose {
        case .resolution(let title):
            // Gone without a trace: dropped by retention, or the server restarted and lost it.
            if error.isNotFound { notice = .warning("\(title): no longer on the server") }
            return []
        case .details:
            break
        }
        guard var open, open.alert.id == id else { return [] }
        open.fillDetails(from: nil)
        self.open = open
        return answerIfChosen()
    }

    /// Notes how an alert resolved when someone else resolved it; once, so that a batch's summary that already
    /// reported it stays on the status line.
    private mutating func resolvedElsewhere(_ alert: RemoteAlert, _ result: RemoteResult) {
        guard appendLog(LogEntry(alert: alert, result: result, elsewhere: true)) else { return }
        let how = LogEntry.how(result, elsewhere: true) ?? "answered elsewhere"
        notice = .warning("\(alert.displayTitle): \(how): \(result.buttonTitle)")
    }

    /// Sends the answer chosen while the details were loading, now that they are here.
    private mutating func answerIfChosen() -> [DashboardEffect] {
        guard let button = open?.chosenWhileLoading else { return [] }
        open?.chosenWhileLoading = nil
        return choose(button)
    }
}
