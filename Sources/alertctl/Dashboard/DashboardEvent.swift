import AlertClient

/// Everything the dashboard's event loop reacts to, from the terminal thread, the list watcher and the requests
/// it starts. One stream, one consumer: `DashboardState` is changed in one place only.
enum DashboardEvent: Sendable {
    case terminal(TerminalSession.Input)
    /// The blocking list query for `presenter` answered: the pending alerts now.
    case listed(RemoteAlertList, presenter: String?)
    /// The list query failed; the watcher retries after `retryIn`.
    case listFailed(reason: String, retryIn: Duration)
    /// Our answer to `alertID` went through.
    case answered(alertID: String, result: RemoteResult)
    case answerFailed(alertID: String, error: AlertClientError)
    /// `POST /v1/answers` answered: each marked alert's outcome, answered with the button titled `button`.
    case answeredMany(button: String, outcomes: [AnswerOutcome])
    /// `POST /v1/answers` failed as a whole (nothing was answered).
    case answerManyFailed(alertIDs: [String], error: AlertClientError)
    /// "Always answer like this": the rule was made after the answer went through.
    case ruleMade(RemoteRule)
    /// "Always answer like this": the answer went through, the rule was refused.
    case ruleFailed(name: String, error: AlertClientError)
    /// `GET /v1/alerts/{id}` answered (`purpose` says why it was asked).
    case fetched(RemoteAlert, purpose: DashboardEffect.FetchPurpose)
    case fetchFailed(alertID: String, purpose: DashboardEffect.FetchPurpose, error: AlertClientError)
    /// `GET /v1/me` answered: who this dashboard answers as, to tell which alerts it may answer.
    case identified(Identity)
    /// SIGINT or SIGTERM: quit, restoring the terminal.
    case interrupted
    /// A second passed: ages and countdowns move on.
    case tick
}
