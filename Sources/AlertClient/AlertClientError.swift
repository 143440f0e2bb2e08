/// Everything an `AlertClient` or `AlertController` call can throw.
///
/// A struct wrapping a private code, so new cases can be added without breaking anyone: branch on `kind`,
/// `status` and `problem`.
public struct AlertClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Kind: Sendable, Equatable, Hashable {
        /// The server answered with an HTTP error; `status` is set, `problem` when it sent problem+json.
        case server
        /// No connection could be made (refused, reset, host unknown).
        case unreachable
        /// The server answered something this client does not understand.
        case invalidResponse
        /// The calling Task was cancelled.
        case cancelled
        /// The request took longer than its time-out.
        case timedOut
        /// The server restarted without keeping its alerts (it runs without `--data-dir`): the alert is gone.
        case lost
        /// The client could not be set up from its configuration (`ALERTD_URL`, `ALERTD_TOKEN_FILE`); `reason`
        /// names the setting and what is wrong with it. Nothing was sent.
        case configuration
    }

    private enum Code: Sendable, Equatable {
        case server(status: Int, problem: Problem?)
        /// `connected`: a connection was made, so the request may have reached the server.
        case unreachable(reason: String, connected: Bool)
        case invalidResponse(reason: String)
        case cancelled
        case timedOut
        case lost(id: String)
        case configuration(reason: String)
    }

    private let code: Code

    private init(_ code: Code) {
        self.code = code
    }

    /// The kind of failure.
    public var kind: Kind {
        switch code {
        case .server: .server
        case .unreachable: .unreachable
        case .invalidResponse: .invalidResponse
        case .cancelled: .cancelled
        case .timedOut: .timedOut
        case .lost: .lost
        case .configuration: .configuration
        }
    }

    /// The HTTP status, for `.server` errors.
    public var status: Int? {
        if case .server(let status, _) = code { return status }
        return nil
    }

    /// The problem+json the server sent, for `.server` errors.
    public var problem: Problem? {
        if case .server(_, let problem) = code { return problem }
        return nil
    }

    /// `404`: no alert has this id (never had, dropped by retention, or the server restarted and lost it).
    public var isNotFound: Bool { status == 404 }

    /// `409`: the alert had already resolved; `problem?.result` is the Result that won.
    public var isConflict: Bool { status == 409 }

    /// What went wrong, without the kind: the problem's detail (and each bad field) for `.server`, the cause for
    /// `.unreachable` (such as "could not connect (connection refused?)").
    public var reason: String {
        switch code {
        case .server(let status, let problem):
            guard let problem else { return "HTTP \(status)" }
            let issues = problem.errors.map { issue in
                "\n  \(issue.pointer ?? issue.parameter.map { "?\($0)" } ?? ""): \(issue.detail)"
            }
            return "\(problem.detail.isEmpty ? problem.title : problem.detail) (HTTP \(status))" + issues.joined()
        case .unreachable(let reason, _), .invalidResponse(let reason), .configuration(let reason):
            return reason
        case .cancelled:
            return "cancelled"
        case .timedOut:
            return "the request timed out"
        case .lost(let id):
            return "the server restarted as a new instance and lost the alert \(id) (it keeps alerts in memory only, "
                + "or its data dir was restored from an older backup)"
        }
    }

    public var description: String {
        switch code {
        case .server:
            return "the server answered: \(reason)"
        case .unreachable(let reason, _):
            return "cannot reach the server: \(reason)"
        case .invalidResponse(let reason):
            return "invalid response from the server: \(reason)"
        case .configuration(let reason):
            return "cannot set up the client: \(reason)"
        case .cancelled:
            return "cancelled"
        case .timedOut:
            return "the request timed out"
        case .lost:
            return reason
        }
    }

    // MARK: making errors (module-internal)

    /// An HTTP error answer.
    static func server(status: Int, problem: Problem?) -> AlertClientError {
        AlertClientError(.server(status: status, problem: problem))
    }

    /// No connection, or one lost; `connected`: one was made, so the request may have reached the server.
    static func unreachable(_ reason: String, connected: Bool = true) -> AlertClientError {
        AlertClientError(.unreachable(reason: reason, connected: connected))
    }

    /// No connection could be made at all (refused, unknown host): the request never reached a server.
    var neverConnected: Bool {
        if case .unreachable(_, connected: false) = code { return true }
        return false
    }

    /// An answer that is not what the API promises.
    static func invalidResponse(_ reason: String) -> AlertClientError {
        AlertClientError(.invalidResponse(reason: reason))
    }

    /// The server that held the alert restarted and lost it.
    static func lost(_ id: String) -> AlertClientError {
        AlertClientError(.lost(id: id))
    }

    /// A bad setting, named in `reason`.
    static func configuration(_ reason: String) -> AlertClientError {
        AlertClientError(.configuration(reason: reason))
    }

    /// The calling Task was cancelled.
    public static let cancelled = AlertClientError(.cancelled)

    /// A request time-out.
    public static let timedOut = AlertClientError(.timedOut)
}
