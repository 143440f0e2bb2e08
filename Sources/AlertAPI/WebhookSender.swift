import AlertCore
import BuildInfo
import Foundation
import JSON
import Locking

/// POSTs a resolved alert to its callback URL, retrying with bounded exponential back-off,
/// and records every attempt on the alert (`webhook` in its JSON).
///
/// `http://` callbacks go through `HTTPExchange` (a socket per attempt, on a thread of its own), `https://` ones
/// through URLSession (`HTTPSPoster`). Either way an attempt first waits for a connection slot (`DeliveryGate`: a
/// bound in all and per URL); its time-out counts from then, and is a hard limit.
public final class WebhookSender: Sendable {
    /// How many attempts in all, the first pause between them (doubling up to `maxDelay`), and each one's time limit.
    public struct Schedule: Sendable {
        var attempts = 8
        var firstDelay = Duration.milliseconds(500)
        var maxDelay = Duration.seconds(30)
        var timeout = Duration.seconds(10)

        public init() {}
    }

    /// Most connections to one callback URL at once.
    static let connectionsPerURL = 8

    private let store: AlertStore
    private let metrics: Metrics
    private let log: AccessLog
    let schedule: Schedule
    /// Where deliveries may connect.
    private let policy: WebhookPolicy
    private let gate: DeliveryGate
    private let https: HTTPSPoster
    /// Deliveries under way, by a number of their own, so that `stop()` can end them; `stopped` once it did.
    private let running = Lock<(next: Int, tasks: [Int: Task<Void, Never>], stopped: Bool)>((0, [:], false))

    /// - Parameters:
    ///   - connections: most webhook connections open at once (see `connectionLimit(fileLimit:)`).
    public init(store: AlertStore, metrics: Metrics, log: AccessLog, policy: WebhookPolicy,
                schedule: Schedule = Schedule(), connections: Int) {
        self.store = store
        self.policy = policy
        self.metrics = metrics
        self.log = log
        self.schedule = schedule
        gate = DeliveryGate(total: connections, perDestination: Self.connectionsPerURL)
        https = HTTPSPoster(timeout: schedule.timeout)
    }

    /// Most webhook connections open at once for a process allowed `fileLimit` descriptors: a sixteenth of them, at
    /// most 64, so that nearly all stay for serving.
    public static func connectionLimit(fileLimit: Int) -> Int {
        min(64, max(1, fileLimit / 16))
    }

    /// Webhook connections open now.
    var openConnections: Int {
        gate.inUse
    }

    /// Starts delivering `alert` (resolved, with a callback); returns at once. Does nothing after `stop()`.
    ///
    /// A callback that is not a valid URL (accepted before the rules were strict, and kept) fails at once, recorded.
    public func deliver(_ alert: Alert) {
        guard let text = alert.delivery?.url else { return }
        let url: CallbackURL
        do {
            url = try CallbackURL(parsing: text)
        } catch {
            Task { [store] in await store.recordDelivery(of: alert.id, error: error.reason, final: true) }
            return
        }
        var writer = JSONWriter()
        writer.write(alert, redactingSecrets: false)
        let body = writer.bytes
        running.withLock { running in
            // An alert can still resolve after shutdown (one expiring, an answer through the store): a delivery
            // started then would retry past `stop()`, keeping its body and the store until the process exits.
            guard !running.stopped else { return }
            let number = running.next
            running.next += 1
            let made = alert.delivery?.attempts ?? 0
            running.tasks[number] = Task {
                await self.attempts(alert.id, url: url, body: body, after: made)
                _ = self.running.withLock { $0.tasks.removeValue(forKey: number) }
            }
        }
    }

    /// Ends every delivery still retrying (at shutdown: the process is about to exit, and a retry that
    /// outlived it would be lost anyway); an attempt in flight is cancelled, and no delivery starts after it.
    public func stop() {
        let tasks = running.withLock { running in
            running.stopped = true
            defer { running.tasks.removeAll() }
            return Array(running.tasks.values)
        }
        for task in tasks { task.cancel() }
        https.stop()
    }

    /// Makes the attempts after the `made` ones the alert records (those of an earlier run, when a restart resumes
    /// the delivery): the count, `X-Alertd-Delivery-Attempt` and the pause go on from there, and at least one more
    /// attempt is made.
    private func attempts(_ id: AlertID, url: CallbackURL, body: [UInt8], after made: Int) async {
        let first = made + 1
        var delay = min(schedule.firstDelay * (1 << min(made, 16)), schedule.maxDelay)
        for attempt in first...max(first, schedule.attempts) {
            guard let failure = await post(body, to: url, id: id, attempt: attempt) else { return }  // stopped
            let final = failure == nil || attempt >= schedule.attempts
            await store.recordDelivery(of: id, error: failure?.shown, final: final)
            metrics.webhook(failure == nil ? "delivered" : (final ? "failed" : "retry"))
            guard let failure else { return }
            log.event(final ? "error" : "warn", "webhook delivery failed",
                      ["alertId": id.rawValue, "attempt": String(attempt), "error": failure.logged])
            if final { return }
            do {
                try await Task.sleep(for: delay)
            } catch {
                return  // stopped
            }
            delay = min(delay * 2, schedule.maxDelay)
        }
    }

    /// Why an attempt failed: what the alert's `webhook.lastError` shows its producer, and what the log says.
    ///
    /// A producer learns whether the allow list refused the address, or the status class the receiver answered, and
    /// nothing else: a refused, a silent and a non-HTTP port all read "no answer", so `lastError` cannot be used to
    /// scan the ports alertd can reach. The operator's log has the reason itself.
    struct Failure: Sendable, Equatable {
        let shown: String
        let logged: String

        static let refused = Failure(
            shown: "not delivered: the callback's address is not an allowed destination (--webhook-allow)",
            logged: "the callback's address is not an allowed destination (--webhook-allow)")

        static func answered(_ status: Int) -> Failure {
            Failure(shown: "receiver answered \(status / 100)xx", logged: "receiver answered \(status)")
        }

        static func noAnswer(_ reason: String) -> Failure {
            Failure(shown: "not delivered: no answer from the receiver", logged: reason)
        }
    }

    /// One attempt: `.some(nil)` when the receiver answered 2xx, `.some(why)` when not, nil when stopped first.
    private func post(_ body: [UInt8], to url: CallbackURL, id: AlertID, attempt: Int) async -> Failure?? {
        await post(body, to: url, headers: [("X-Alertd-Alert", id.rawValue),
                                            ("X-Alertd-Delivery-Attempt", String(attempt))], policy: policy)
    }

    /// One JSON POST through this sender's connection slots and clients (the notifier's too): `.some(nil)` when the
    /// receiver answered 2xx, `.some(why)` when not, nil when stopped first.
    func post(_ body: [UInt8], to url: CallbackURL, headers extra: [(String, String)],
              policy: WebhookPolicy) async -> Failure?? {
        let key = url.text
        guard await gate.enter(key) else { return nil }
        let headers = [("Content-Type", "application/json"), ("User-Agent", BuildInfo.userAgent)] + extra
        let outcome: Result<Int, HTTPExchange.Failure>
        switch url.scheme {
        case .http:
            let exchange = HTTPExchange(url: url, policy: policy, headers: headers, body: body,
                                        deadline: .now + schedule.timeout)
            outcome = await Self.run(exchange, within: schedule.timeout) { self.gate.leave(key) }
        case .https:
            // URLSession resolves the name itself, a moment later: every address it may pick must be admitted.
            let admitted = await Self.onThread { [policy] in
                let resolved = HTTPExchange.addresses(of: url)
                return resolved.allSatisfy { policy.admits($0.text, for: url.host) }
            }
            if admitted {
                outcome = await https.post(url, headers: headers, body: body) { self.gate.leave(key) }
            } else {
                gate.leave(key)
                outcome = .failure(.refused)
            }
        }
        switch outcome {
        case .success(let status): return .some((200..<300).contains(status) ? nil : .answered(status))
        case .failure(.cancelled): return nil
        case .failure(.refused): return .some(.refused)
        case .failure(.timedOut): return .some(.noAnswer("no answer within \(schedule.timeout.components.seconds) s"))
        case .failure(.failed(let reason)): return .some(.noAnswer(reason))
        }
    }

    /// Runs `work` (which blocks: a name look-up) on a thread of its own.
    private static func onThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: work()) }
            thread.stackSize = 512 * 1024
            thread.start()
        }
    }

    /// Runs `exchange` on a thread of its own; returns its outcome, or `timedOut` once `timeout` passes (then the
    /// exchange is cancelled and ends on its own). `ended` is called when the thread is done with its socket.
    private static func run(_ exchange: HTTPExchange, within timeout: Duration,
                            ended: @escaping @Sendable () -> Void) async -> Result<Int, HTTPExchange.Failure> {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let reply = ReplyOnce(continuation)
                let timer = Task {
                    guard (try? await Task.sleep(for: timeout)) != nil else { return }
                    exchange.cancel()
                    reply.resume(.failure(.timedOut))
                }
                let thread = Thread {
                    let result = exchange.run()
                    ended()
                    timer.cancel()
                    reply.resume(result)
                }
                thread.stackSize = 512 * 1024
                thread.start()
            }
        } onCancel: {
            exchange.cancel()
        }
    }
}
