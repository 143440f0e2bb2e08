/// What a tool's run comes to: its value, or a wait for a person that the transport carries out. One tool
/// implementation serves both transports: `MCPServer.handle` (stdio, tests) waits on its task
/// (`carriedOut()`); alertd's `/mcp` parks the call on the store the way a long-poll waits, with a callback and no
/// task (`MCPServer.start`), and resumes the step when the wait ends.
public enum ToolStep<Value: Sendable>: Sendable {
    case done(Value)
    case waiting(ToolWait<Value>)

    /// The step whose value is `transform` of this one's, once it has one.
    func map<T: Sendable>(_ transform: @escaping @Sendable (Value) async -> T) async -> ToolStep<T> {
        switch self {
        case .done(let value): .done(await transform(value))
        case .waiting(let wait): .waiting(wait.map(transform))
        }
    }

    /// Carries out every wait on the calling task: `backend.result` while a timer task sends progress. A cancelled
    /// task ends the wait with `.cancelled`, and the tool decides what that means (withdraws its alert).
    public func carriedOut() async -> Value {
        var step = self
        while true {
            switch step {
            case .done(let value): return value
            case .waiting(let wait): step = await wait.resume(await wait.waitHere())
            }
        }
    }
}

/// A tool waiting for alert `alertID` to resolve until `deadline` (`nil`: until it resolves), then going on with
/// the Result: `resume` with what the wait came to (`.success(nil)`: the deadline passed with the alert pending;
/// `.failure(.cancelled)`: the call was cancelled).
public struct ToolWait<Value: Sendable>: Sendable {
    public let alertID: String
    public let deadline: ContinuousClock.Instant?
    let site: WaitSite
    let next: @Sendable (Result<AlertOutcome?, AlertBackendError>) async -> ToolStep<Value>

    /// Whether the request asked for progress notifications while it waits.
    public var wantsProgress: Bool { site.progress.isRequested }

    /// Sends the next progress notification (from the transport's timer, every `interval` or so).
    public func sendProgress(now: ContinuousClock.Instant = .now) {
        site.progress.send(
            "Waiting for a person to answer alert \(alertID) (\((now - site.started).components.seconds) s)")
    }

    /// Goes on with what the wait came to: the tool's value, or another wait.
    public func resume(_ result: Result<AlertOutcome?, AlertBackendError>) async -> ToolStep<Value> {
        await next(result)
    }

    func map<T: Sendable>(_ transform: @escaping @Sendable (Value) async -> T) -> ToolWait<T> {
        let next = self.next
        return ToolWait<T>(alertID: alertID, deadline: deadline, site: site) { result in
            await next(result).map(transform)
        }
    }

    /// The wait on this task: the backend's `result`, and progress every `interval` when requested.
    func waitHere() async -> Result<AlertOutcome?, AlertBackendError> {
        let (backend, id, deadline, interval) = (site.backend, alertID, self.deadline, site.interval)
        let outcome = await withTaskGroup(of: Result<AlertOutcome?, AlertBackendError>?.self) { group in
            group.addTask {
                do throws(AlertBackendError) {
                    return .success(try await backend.result(id, until: deadline))
                } catch {
                    return .failure(error)
                }
            }
            if wantsProgress {
                group.addTask {
                    while true {
                        do {
                            try await Task.sleep(for: interval)
                        } catch {
                            return nil
                        }
                        sendProgress()
                    }
                }
            }
            for await value in group {
                if let value {
                    group.cancelAll()
                    return value
                }
            }
            return .failure(.cancelled)
        }
        return Task.isCancelled ? .failure(.cancelled) : outcome
    }
}

extension ToolContext {
    /// The step of a tool that waits for `alert`'s Result until `deadline` (`nil`: until it resolves, however many
    /// waits that takes), then gives `then` of what the wait came to. An alert resolved already, or a deadline
    /// passed, needs no wait.
    func waiting<Value: Sendable>(
        for alert: AlertSnapshot, until deadline: ContinuousClock.Instant?,
        then: @escaping @Sendable (Result<AlertOutcome?, AlertBackendError>) async -> Value
    ) async -> ToolStep<Value> {
        if let result = alert.result { return .done(await then(.success(result))) }
        let backend = backend
        if let deadline, deadline <= .now {
            do throws(AlertBackendError) {
                return .done(await then(.success(try await backend.result(alert.id, until: deadline))))
            } catch {
                return .done(await then(.failure(error)))
            }
        }
        let site = WaitSite(backend: backend, progress: progress, interval: options.progressInterval)
        return .waiting(Self.wait(alert.id, until: deadline, at: site, then: then))
    }

    /// Without a deadline, a wait that ends pending (the backend's own bound) is waited again.
    private static func wait<Value: Sendable>(
        _ id: String, until deadline: ContinuousClock.Instant?, at site: WaitSite,
        then: @escaping @Sendable (Result<AlertOutcome?, AlertBackendError>) async -> Value
    ) -> ToolWait<Value> {
        ToolWait(alertID: id, deadline: deadline, site: site) { result in
            if deadline == nil, case .success(nil) = result {
                return .waiting(wait(id, until: nil, at: site, then: then))
            }
            return .done(await then(result))
        }
    }

    /// What withdraws the alert of a cancelled call (when the options say so), holding only that.
    var withdrawal: Withdrawal { Withdrawal(backend: options.dismissOnCancel ? backend : nil) }
}

/// Withdraws the alert of a cancelled call, from a task of its own: the call's task is cancelled, and a request made
/// in it would fail at once. Without a backend (the options say not to), does nothing.
struct Withdrawal: Sendable {
    let backend: (any AlertBackend)?

    func callAsFunction(_ id: String) async {
        guard let backend else { return }
        await Task { _ = try? await backend.dismiss(id) }.value
    }
}

/// What a tool's waits share for as long as they last (one object, not a copy in each closure): the backend, the
/// progress channel and its interval, and when the first wait began.
final class WaitSite: Sendable {
    let backend: any AlertBackend
    let progress: Progress
    let interval: Duration
    let started = ContinuousClock.now

    init(backend: any AlertBackend, progress: Progress, interval: Duration) {
        self.backend = backend
        self.progress = progress
        self.interval = interval
    }
}
