import AlertClient

/// What handling an event asks the event loop to do outside the state: requests, repaints, quitting.
enum DashboardEffect: Sendable, Equatable {
    /// Why an alert is fetched in full.
    enum FetchPurpose: Sendable, Equatable {
        /// Its secure fields' texts, which lists leave out (`null`), before answering it.
        case details
        /// How it resolved, after it left the pending list while it was open here (`title` for the message when
        /// the server no longer has it).
        case resolution(title: String)
    }

    /// `POST /v1/alerts/{id}/response`. `values` may hold secrets: they live only in this effect and the request.
    case answer(alertID: String, buttonIndex: Int, values: [String]?)
    /// `POST /v1/answers`: every alert of `alertIDs` answered with the button titled `button`, each on its own.
    case answerMany(alertIDs: [String], button: String)
    /// "Always answer like this": `POST /v1/alerts/{id}/response` as `.answer`, then, once it went through,
    /// `POST /v1/rules` with `rule`.
    case answerAndMakeRule(alertID: String, buttonIndex: Int, values: [String]?, rule: RuleInput)
    case fetch(alertID: String, purpose: FetchPurpose)
    /// Repaint every cell (Ctrl-L).
    case repaint
    /// Ring the terminal's bell: a new alert arrived.
    case bell
    /// Follow the pending list of another presenter (`nil` for all), starting afresh.
    case watch(presenter: String?)
    case quit
    /// Quit with an error message and a failure exit code.
    case fail(String)
}
