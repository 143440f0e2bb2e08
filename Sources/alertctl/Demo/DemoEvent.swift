import AlertClient

/// Everything the demo's event loop reacts to.
enum DemoEvent: Sendable {
    case terminal(TerminalSession.Input)
    /// The server created the alert for `prompt`.
    case created(DemoPrompt, alertID: String)
    /// An action closure ran: show `title` in the debug label (the seed's `log:`).
    case log(String)
    /// An action closure ran: dismiss the PopView.
    case dismissPopView
    /// The alert for `prompt` resolved (after its action, if any, ran).
    case resolved(DemoPrompt, RemoteResult)
    case failed(DemoPrompt, AlertClientError)
    case interrupted
}

/// What the demo's state asks its event loop to do.
enum DemoEffect: Sendable, Equatable {
    /// Post the alert and wait for it.
    case present(DemoPrompt)
    case repaint
    /// Quit, first withdrawing the outstanding alert if there is one.
    case quit(withdrawing: String?)
    case fail(String)
}
