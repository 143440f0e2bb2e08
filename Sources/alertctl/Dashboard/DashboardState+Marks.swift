import AlertClient

/// The prompt of `a`: which button answers every marked alert.
struct BatchAnswer: Sendable, Equatable {
    /// The marked alerts, in list order.
    var alerts: [RemoteAlert]
    /// The button titles every one of them has, in the first one's display order; a title destructive in any of
    /// them is destructive here.
    var buttons: [RemoteButton]
    /// A destructive button chosen once: sent only after `y`.
    var confirming: RemoteButton?
    /// Marked alerts left out because they became read-only, said after the buttons; empty when none was.
    var note = ""
}

extension DashboardState {
    /// Space on the list: marks the selected alert, or takes its mark away. An alert this dashboard may not answer
    /// (read-only) cannot be marked.
    mutating func toggleMark() {
        guard let selected else { return }
        if marked.remove(selected.id) != nil { return }
        guard mayAnswer(selected) else {
            notice = .warning("read-only: this alert names who may answer it, and you are not among them, so it "
                + "cannot be marked")
            return
        }
        marked.insert(selected.id)
    }

    /// The marked alerts that are still listed, in list order.
    var markedAlerts: [RemoteAlert] {
        alerts.filter { marked.contains($0.id) }
    }

    /// `a` on the list: offers the buttons the marked alerts have in common, to answer them all with one.
    /// A marked alert that became read-only since (an escalation step named others) loses its mark and is never
    /// answered; the prompt says so.
    mutating func offerBatchAnswer() {
        let readOnly = markedAlerts.filter { !mayAnswer($0) }
        for alert in readOnly { marked.remove(alert.id) }
        let skipped = readOnly.isEmpty ? ""
            : " (\(readOnly.count) read-only unmarked: \(readOnly.map(\.displayTitle).joined(separator: ", ")))"
        let alerts = markedAlerts
        guard !alerts.isEmpty else {
            if !readOnly.isEmpty {
                notice = .warning("no marked alert may be answered by you" + skipped)
                return
            }
            notice = .warning("no alert is marked: Space marks the selected alert, then a answers every marked one")
            return
        }
        guard connection == .connected else {
            notice = .warning("not connected: cannot answer the marked alerts now")
            return
        }
        let buttons = OpenAlert(alerts[0]).buttons.compactMap { first -> RemoteButton? in
            let same = alerts.compactMap { alert in alert.buttons.first { $0.title == first.title } }
            guard same.count == alerts.count else { return nil }
            var button = first
            if same.contains(where: \.isDestructive) { button.style = "destructive" }
            return button
        }
        guard !buttons.isEmpty else {
            notice = .warning("the \(alerts.count) marked alerts have no button in common: answer them one by one")
            return
        }
        batch = BatchAnswer(alerts: alerts, buttons: buttons, note: skipped)
    }

    /// A key while the batch prompt is up: 1…9 choose a button (a destructive one then asks for `y`), anything
    /// else closes the prompt.
    mutating func handleInBatch(_ key: Key) -> [DashboardEffect] {
        guard var batch else { return [] }
        self.batch = nil
        if let button = batch.confirming {
            guard key == .character("y") || key == .character("Y") || key == .enter else { return [] }
            return answerMarked(batch.alerts, with: button)
        }
        guard let digit = key.digit, digit <= batch.buttons.count else { return [] }
        let button = batch.buttons[digit - 1]
        if button.isDestructive {
            batch.confirming = button
            self.batch = batch
            return []
        }
        return answerMarked(batch.alerts, with: button)
    }

    private mutating func answerMarked(_ alerts: [RemoteAlert], with button: RemoteButton) -> [DashboardEffect] {
        guard connection == .connected else {
            notice = .warning("not connected: not sent (\(button.title))")
            return []
        }
        for alert in alerts { answering[alert.id] = alert }
        notice = .info("answering \(alerts.count) marked with \(button.title)…")
        return [.answerMany(alertIDs: alerts.map(\.id), button: button.title)]
    }

    /// `POST /v1/answers` answered: each alert's outcome goes to the log (answered here, or already resolved by
    /// someone else) and to the status line (what was not answered, and why).
    mutating func answeredMany(_ title: String, _ outcomes: [AnswerOutcome]) {
        var answered = 0
        var others: [String] = []
        for outcome in outcomes {
            guard let alert = answering.removeValue(forKey: outcome.id) ?? alerts.first(where: { $0.id == outcome.id })
            else { continue }
            switch outcome.outcome {
            case "answered":
                answered += 1
                if let result = outcome.result { appendLog(LogEntry(alert: alert, result: result, elsewhere: false)) }
            case "already-resolved":
                let how = outcome.result.flatMap { LogEntry.how($0, elsewhere: true) } ?? "resolved elsewhere"
                others.append("\(alert.displayTitle): already \(how)")
                if let result = outcome.result { appendLog(LogEntry(alert: alert, result: result, elsewhere: true)) }
            case "not-allowed":
                others.append("\(alert.displayTitle): not allowed")
            case "not-found":
                others.append("\(alert.displayTitle): gone")
            default:
                others.append("\(alert.displayTitle): \(outcome.detail ?? outcome.outcome)")
            }
            marked.remove(alert.id)
            if ["answered", "already-resolved", "not-found"].contains(outcome.outcome) { removeAlert(alert.id) }
        }
        let summary = (answered > 0 ? ["answered \(answered) with \(title)"] : []) + others
        notice = others.isEmpty ? .success(summary.joined(separator: "; ")) : .warning(summary.joined(separator: "; "))
    }

    /// `POST /v1/answers` failed as a whole: the marks stay, to try again.
    mutating func answerManyFailed(_ ids: [String], _ error: AlertClientError) {
        for id in ids { answering[id] = nil }
        notice = .warning("could not answer the marked alerts: \(error) (a answers them again)")
    }
}
