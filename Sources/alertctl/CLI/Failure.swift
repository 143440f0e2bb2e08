import AlertClient

/// Turns client errors into a message on standard error and an exit code.
enum Failure {
    /// Reports `error` and returns its exit code.
    /// - Parameters:
    ///   - error: What the client threw.
    ///   - context: For the server's URL.
    ///   - json: Whether `--json` was given (a winning result on `409` is then printed as JSON).
    static func report(_ error: AlertClientError, _ context: CommandContext, json: Bool = false) -> ExitCode {
        switch error.kind {
        case .unreachable, .timedOut:
            Console.err("alertctl: cannot reach alertd at \(context.url): \(error.reason)")
            return .unreachable
        case .cancelled:
            Console.err("alertctl: cancelled")
            return .notAccepted
        case .configuration:
            Console.err("alertctl: \(error.reason)")
            return .usage
        case .invalidResponse:
            Console.err("alertctl: unexpected answer from \(context.url) (is it alertd?): \(error.reason)")
            return .rejected
        case .server:
            return reportServer(error, context, json: json)
        case .lost:
            Console.err("alertctl: \(error.reason)")
            return .notFound
        }
    }

    private static func reportServer(_ error: AlertClientError, _ context: CommandContext, json: Bool) -> ExitCode {
        let problem = error.problem
        if error.status == 404, problem?.type == "urn:alertd:problem:not-found" {
            Console.err("alertctl: \(problem?.detail ?? "no such alert")")
            return .notFound
        }
        if error.status == 409, let result = problem?.result {
            Console.err("alertctl: \(problem?.detail ?? "the alert had already resolved"); the result that won:")
            ResultPrinter.print(result, json: json)
            return .conflict
        }
        if error.status == 404 {
            Console.err("alertctl: \(context.url) answered 404 for an API path: is it alertd?")
            return .rejected
        }
        if error.status == 401 {
            Console.err("alertctl: alertd needs a valid token: \(error.reason)\n"
                + "Set ALERTD_TOKEN to your token (or ALERTD_TOKEN_FILE to a file holding it).")
            return .rejected
        }
        Console.err("alertctl: alertd rejected the request: \(error.reason)")
        return .rejected
    }
}
