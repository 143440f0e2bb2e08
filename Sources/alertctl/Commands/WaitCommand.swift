import AlertClient
import CommandLineText

/// `alertctl wait ID`: waits for an alert's Result; exits as `alert --wait` does.
struct WaitCommand: Subcommand {
    static let name = "wait"
    static let summary = "Wait for an alert's answer; exit 0 unless cancel, dismissed or expired."
    static let usage = "alertctl wait ID [--timeout DURATION] [--json]"
    static let discussion = """
        Prints the chosen button's title and each field's value on its own line (or --json: the Result).
        Keeps waiting across long-poll time-outs and a briefly unreachable server, saying so on
        standard error. Exit status: 0 when a button other than cancel was chosen; 1 when cancel was
        chosen, or it was dismissed or expired; 7 when --timeout passed first (the alert stays pending).
        """
    static let options: [CommandLineOption] = [
        .option("--timeout", value: "DURATION", help: "Stop waiting after this long (exit 7): seconds, or 90s, 5m, 1h"),
        .json,
    ]

    let id: String
    let timeout: Double?
    let json: Bool

    init(_ arguments: ParsedCommandLine) throws(UsageError) {
        id = try arguments.positionals("ID")[0]
        timeout = try arguments.seconds("--timeout")
        json = arguments.has("--json")
    }

    func run(_ context: CommandContext) async -> ExitCode {
        do {
            // One plain poll first: an unreachable server or an unknown id is reported at once instead of retried.
            let result: RemoteResult?
            if let first = try await context.client.response(id) {
                result = first
            } else {
                result = try await Self.waitForResult(context, id, timeout: timeout)
            }
            guard let result else {
                Console.err("alertctl: \(id) is still pending after \(timeout.map { "\($0)" } ?? "?") s")
                return .stillPending
            }
            ResultPrinter.print(result, json: json)
            return ResultPrinter.exitCode(for: result)
        } catch {
            return Failure.report(error, context, json: json)
        }
    }

    /// `client.waitForResult(id)`, saying on standard error while alertd is away; `nil` once `timeout` seconds have
    /// passed.
    static func waitForResult(_ context: CommandContext, _ id: String, timeout: Double?) async throws(AlertClientError)
        -> RemoteResult?
    {
        let client = context.client
        let progress = context.waitProgress
        guard let timeout else { return try await client.waitForResult(id, progress: progress) }
        let outcome = await withTaskGroup(of: Result<RemoteResult, AlertClientError>?.self) { group in
            group.addTask {
                do throws(AlertClientError) {
                    return .success(try await client.waitForResult(id, progress: progress))
                } catch {
                    return .failure(error)
                }
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(timeout))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        return try outcome?.get()
    }
}
