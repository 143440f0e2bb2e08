import AlertCore
import BuildInfo
import Foundation
import Locking
#if canImport(FoundationNetworking)
import FoundationNetworking
import JSON
#endif

/// POSTs a resolved alert to its callback URL, retrying with bounded exponential back-off,
/// and records every attempt on the alert (`webhook` in its JSON).
final class WebhookSender: Sendable {
    /// How many attempts in all, and the first pause between them (doubling up to `maxDelay`).
    struct Schedule: Sendable {
        var attempts = 8
        var firstDelay = Duration.milliseconds(500)
        var maxDelay = Duration.seconds(30)
        var timeout = 10.0
    }

    private let store: AlertStore
    private let metrics: Metrics
    private let log: AccessLog
    private let schedule: Schedule
    /// Made on the first delivery: a URLSession costs start-up time most servers never need back.
    private let session = Lock<URLSession?>(nil)
    /// Deliveries under way, by a number of their own, so that `stop()` can end them; `stopped` once it did.
    private let running = Lock<(next: Int, tasks: [Int: Task<Void, Never>], stopped: Bool)>((0, [:], false))

    init(store: AlertStore, metrics: Metrics, log: AccessLog, schedule: Schedule = Schedule()) {
        self.store = store
        self.metrics = metrics
        self.log = log
        self.schedule = schedule
    }

    private var client: URLSession {
        session.withLock { session in
            if let session { return session }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = schedule.timeout
            configuration.httpMaximumConnectionsPerHost = 16
            // Redirects are not followed: they could lead past the allowed destinations.
            let made = URLSession(configuration: configuration, delegate: RefuseRedirects(), delegateQueue: nil)
            session = made
            return made
        }
    }

    /// Starts delivering `alert` (resolved, with a callback); returns at once. Does nothing after `stop()`.
    func deliver(_ alert: Alert) {
        guard let url = alert.delivery.flatMap({ URL(string: $0.url) }) else { return }
        var writer = JSONWriter()
        writer.write(alert, redactingSecrets: false)
        let body = Data(writer.bytes)
        running.withLock { running in
            // An alert can still resolve after shutdown (one expiring, an answer through the store): a delivery
            // started then would retry past `stop()`, keeping its body and the store until the process exits.
            guard !running.stopped else { return }
            let number = running.next
            running.next += 1
            running.tasks[number] = Task {
                await self.attempts(alert.id, url: url, body: body)
                _ = self.running.withLock { $0.tasks.removeValue(forKey: number) }
            }
        }
    }

    /// Ends every delivery still retrying (at shutdown: the process is about to exit, and a retry that
    /// outlived it would be lost anyway); an attempt in flight is cancelled, and no delivery starts after it.
    func stop() {
        let tasks = running.withLock { running in
            running.stopped = true
            defer { running.tasks.removeAll() }
            return Array(running.tasks.values)
        }
        for task in tasks { task.cancel() }
    }

    private func attempts(_ id: AlertID, url: URL, body: Data) async {
        var delay = schedule.firstDelay
        for attempt in 1...max(1, schedule.attempts) {
            let error = await post(body, to: url, id: id, attempt: attempt)
            let final = error == nil || attempt == schedule.attempts
            await store.recordDelivery(of: id, error: error, final: final)
            metrics.webhook(error == nil ? "delivered" : (final ? "failed" : "retry"))
            if error == nil { return }
            log.event(final ? "error" : "warn", "webhook delivery failed",
                      ["alertId": id.rawValue, "attempt": String(attempt), "error": error ?? ""])
            if final { return }
            do {
                try await Task.sleep(for: delay)
            } catch {
                return  // stopped
            }
            delay = min(delay * 2, schedule.maxDelay)
        }
    }

    /// One attempt; nil when the receiver answered 2xx, else why not.
    private func post(_ body: Data, to url: URL, id: AlertID, attempt: Int) async -> String? {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(BuildInfo.userAgent, forHTTPHeaderField: "User-Agent")
        request.setValue(id.rawValue, forHTTPHeaderField: "X-Alertd-Alert")
        request.setValue(String(attempt), forHTTPHeaderField: "X-Alertd-Delivery-Attempt")
        do {
            let (_, response) = try await client.data(for: request)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            return (200..<300).contains(status) ? nil : "receiver answered \(status)"
        } catch {
            return "\(error.localizedDescription)"
        }
    }
}

/// Refuses every redirect, so the 3xx answer itself is the attempt's outcome (a failure): a receiver
/// must not be able to send the alert on to a destination `WebhookPolicy` does not allow. Set on the
/// session: swift-corelibs-foundation ignores a per-task delegate's redirect decision.
final class RefuseRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}
