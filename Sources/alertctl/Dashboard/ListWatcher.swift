import AlertClient

/// Follows the pending list with the blocking query (`GET /v1/alerts?index=N&wait=30`): each answer comes as soon
/// as the store changes, so new alerts appear at once without polling on a timer. Each answer is the whole list up
/// to `limit`, every 1 MiB page of it (`AlertClient.listAll`), and the next query waits on the first page's index:
/// a change made while the later pages were read wakes it at once, so the next list shows it.
///
/// When a query fails (server down, restarting, unreachable) it reports it and retries with back-off (0.25 s
/// doubling to 3 s), starting again without an index: a restarted server's index starts over, and waiting for
/// the old one would hide its new alerts.
struct ListWatcher: Sendable {
    let client: AlertClient
    let presenter: String?
    let limit: Int
    /// Seconds each blocking query asks the server to hold.
    var wait = 30

    /// Runs until the Task is cancelled.
    /// - Parameter emit: receives `.listed` and `.listFailed` events.
    func run(emit: @escaping @Sendable (DashboardEvent) -> Void) async {
        var index: UInt64?
        var failures = 0
        while !Task.isCancelled {
            do {
                let list = try await client.listAll(
                    state: "pending", presenter: presenter, limit: limit, index: index, wait: index == nil ? 0 : wait)
                failures = 0
                index = list.index
                if Task.isCancelled { return }
                emit(.listed(list, presenter: presenter))
            } catch {
                if error.kind == .cancelled || Task.isCancelled { return }
                failures += 1
                index = nil
                let delay = Self.delay(afterFailures: failures)
                emit(.listFailed(reason: Self.reason(error), retryIn: delay))
                do { try await Task.sleep(for: delay) } catch { return }
            }
        }
    }

    /// 0.25 s, 0.5 s, 1 s, 2 s, then 3 s.
    static func delay(afterFailures failures: Int) -> Duration {
        min(.milliseconds(250) * (1 << min(failures - 1, 4)), .seconds(3))
    }

    private static func reason(_ error: AlertClientError) -> String {
        switch error.kind {
        case .unreachable: "unreachable"
        case .timedOut: "timed out"
        case .server where error.status == 401: "HTTP 401: set ALERTD_TOKEN (or ALERTD_TOKEN_FILE)"
        case .server: "HTTP \(error.status ?? 0)"
        default: "\(error)"
        }
    }
}
