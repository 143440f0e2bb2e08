import Foundation

/// What a wait reports while the server cannot be reached, so a program can say it is retrying rather than print
/// nothing for as long as the outage lasts.
public enum WaitProgress: Sendable, Equatable {
    /// An attempt failed and will be made again after `retryIn`; `first` for the first failure of an outage.
    case retrying(AlertClientError, retryIn: Duration, first: Bool)
    /// The server answered again after an outage.
    case reconnected
}

extension AlertClient {
    /// Waits until an alert resolves and returns its Result.
    ///
    /// Long-polls `GET /v1/alerts/{id}/response?wait=pollWait`, again and again across long-poll time-outs. While
    /// the server cannot be reached (refused, connection lost, request time-out, `503` while it shuts down) it
    /// retries with exponential back-off: 0.2 s doubling to at most 5 s, with a little jitter, forever unless
    /// `giveUpAfter` is given. Once the server answers again the back-off starts over.
    ///
    /// A server with a data dir keeps its alerts across restarts, so the wait goes on with the restarted server. One
    /// without (memory only) loses them: when its instance identity (`X-Alertd-Instance`) changed and the alert is
    /// gone, this throws `.lost`.
    ///
    /// Cancelling the calling Task cancels the in-flight long-poll and throws `.cancelled` promptly. It only stops
    /// *waiting*: the alert stays pending on the server. Call `dismiss(_:)` to withdraw it.
    ///
    /// - Parameters:
    ///   - id: The alert's id.
    ///   - giveUpAfter: How long the server may stay unreachable (continuously) before the last error is thrown;
    ///     `nil` retries forever.
    ///   - progress: Told of each retry after a transient failure, and when the server answers again.
    /// - Returns: The Result, secure values included.
    /// - Throws: `.cancelled`; `.server` (404, 400, …) for an error the server gave; `.unreachable`/`.timedOut`
    ///   only after `giveUpAfter`.
    public func waitForResult(
        _ id: String, giveUpAfter: Duration? = nil, progress: (@Sendable (WaitProgress) -> Void)? = nil
    ) async throws(AlertClientError) -> RemoteResult {
        try await retrying(giveUpAfter: giveUpAfter, progress: progress) { () throws(AlertClientError) in
            try await response(id, wait: pollWait)
        }
    }

    /// Creates an alert so that a lost response or a server restart cannot make two: sends `idempotencyKey` (a new
    /// random one unless given) and retries transient failures (connection lost, timed out, 502/503/504) with the
    /// same key and back-off, for up to `giveUpAfter`. A retry after a create that did commit gets that alert
    /// (`200`) instead of a second one; a memory-only server that restarted meanwhile lost the first, so it makes
    /// one. A first attempt that cannot connect at all (refused, unknown host) throws at once, as every call does:
    /// nothing reached a server, which is down or not at this URL.
    ///
    /// - Parameters:
    ///   - input: The alert.
    ///   - idempotencyKey: The key every attempt sends.
    ///   - giveUpAfter: How long the server may stay unreachable before the last error is thrown.
    /// - Returns: The pending alert.
    /// - Throws: What `create(_:idempotencyKey:)` throws that is not transient; the last transient error after
    ///   `giveUpAfter`; `.cancelled`.
    public func createRetrying(
        _ input: AlertInput, idempotencyKey: String = UUID().uuidString, giveUpAfter: Duration
    ) async throws(AlertClientError) -> RemoteAlert {
        do {
            return try await create(input, idempotencyKey: idempotencyKey)
        } catch {
            guard error.isTransient, !error.neverConnected else { throw error }
        }
        return try await retrying(giveUpAfter: giveUpAfter) { () throws(AlertClientError) in
            try await create(input, idempotencyKey: idempotencyKey)
        }
    }

    /// Calls `attempt` until it returns a value: again at once after `nil` (progress: a long-poll ended), after a
    /// back-off of 0.2 s doubling to 5 s after a transient failure (`isTransient`), for as long as failures last at
    /// most `giveUpAfter` in a row (`nil`: forever). Other errors, and cancellation, end it. `progress` hears of
    /// each retry and of the first answer after an outage.
    func retrying<T>(
        giveUpAfter: Duration?, progress: (@Sendable (WaitProgress) -> Void)? = nil,
        _ attempt: () async throws(AlertClientError) -> T?
    ) async throws(AlertClientError) -> T {
        var backoff = Backoff()
        var outageStart: ContinuousClock.Instant?
        while true {
            if Task.isCancelled { throw .cancelled }
            do {
                let value = try await attempt()
                if outageStart != nil { progress?(.reconnected) }
                if let value { return value }
                backoff.reset()
                outageStart = nil
            } catch {
                guard error.isTransient else { throw error }
                let now = ContinuousClock.now
                let start = outageStart ?? now
                outageStart = start
                var delay = backoff.next()
                if let giveUpAfter {
                    let remaining = giveUpAfter - (now - start)
                    if remaining <= .zero { throw error }
                    delay = min(delay, remaining)
                }
                progress?(.retrying(error, retryIn: delay, first: start == now))
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    throw .cancelled
                }
            }
        }
    }
}

extension AlertClientError {
    /// Whether retrying later may succeed: the server is (perhaps briefly) unreachable, timed out, or answered
    /// 502/503/504 (503 is what alertd answers waiting requests while it shuts down). `waitForResult` retries
    /// these; a loop of blocking list queries should too, starting again without an `index` (a restarted server
    /// counts its index from 0).
    public var isTransient: Bool {
        switch kind {
        case .unreachable, .timedOut: true
        case .server: status == 502 || status == 503 || status == 504
        case .invalidResponse, .cancelled, .configuration, .lost: false
        }
    }
}

/// Exponential back-off: 0.2 s doubling to 5 s, each delay jittered down by up to 20 %.
struct Backoff: Sendable {
    private let initial: Duration = .milliseconds(200)
    private let maximum: Duration = .seconds(5)
    private var current: Duration = .milliseconds(200)

    /// The next delay.
    mutating func next() -> Duration {
        let delay = current
        current = min(current * 2, maximum)
        return delay * Double.random(in: 0.8...1.0)
    }

    /// Back to the initial delay.
    mutating func reset() {
        current = initial
    }
}
