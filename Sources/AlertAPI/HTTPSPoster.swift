import Foundation
import Locking
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// POSTs to `https://` callbacks with URLSession (libcurl does the TLS), reading only the answer's status: the task is
/// cancelled as soon as the response head arrives, so no body is read or decoded, and it is cancelled at the deadline
/// however the receiver trickles. Redirects are refused: the 3xx itself is the outcome, so a receiver cannot send the
/// alert on to a destination `WebhookPolicy` does not allow (set on the session: swift-corelibs-foundation ignores a
/// per-task delegate's redirect decision).
final class HTTPSPoster: NSObject, URLSessionDataDelegate, Sendable {
    private typealias Outcome = Result<Int, HTTPExchange.Failure>

    /// A task under way: who waits for its status (nil once answered), and what to call when it has ended.
    private struct Pending {
        var continuation: CheckedContinuation<Outcome, Never>?
        let ended: @Sendable () -> Void
        /// Cancels the task at the deadline; cancelled itself when the task ends first.
        var timer: Task<Void, Never>?
    }

    private let timeout: Duration
    /// Made on the first https delivery: a URLSession costs start-up time most servers never need back.
    private let session = Lock<URLSession?>(nil)
    private let pending = Lock<[Int: Pending]>([:])

    /// - Parameter timeout: the most one attempt may take, from its start.
    init(timeout: Duration) {
        self.timeout = timeout
    }

    /// POSTs `body` to `url`; returns the status, or why there is none.
    /// - Parameter ended: called once when the transfer has ended and its connection is closed (after the return
    ///   when the deadline passed first).
    func post(_ url: CallbackURL, headers: [(String, String)], body: [UInt8],
              ended: @escaping @Sendable () -> Void) async -> Result<Int, HTTPExchange.Failure> {
        guard let address = URL(string: url.text) else {
            ended()
            return .failure(.failed("callback URL cannot be read by URLSession"))
        }
        var request = URLRequest(url: address)
        request.httpMethod = "POST"
        request.httpBody = Data(body)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        request.setValue("close", forHTTPHeaderField: "Connection")
        let task = client.dataTask(with: request)
        let id = task.taskIdentifier
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                pending.withLock { $0[id] = Pending(continuation: continuation, ended: ended) }
                task.resume()
                let timer = Task {
                    guard (try? await Task.sleep(for: timeout)) != nil else { return }
                    self.answer(id, .failure(.timedOut))
                    task.cancel()
                }
                pending.withLock { $0[id]?.timer = timer }
            }
        } onCancel: {
            task.cancel()
        }
    }

    /// Cancels every transfer and lets the session go (it holds this object as its delegate).
    func stop() {
        session.withLock { $0?.invalidateAndCancel() }
    }

    private var client: URLSession {
        session.withLock { session in
            if let session { return session }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = Double(timeout.components.seconds) + 1
            configuration.urlCache = nil
            configuration.httpShouldSetCookies = false
            let made = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
            session = made
            return made
        }
    }

    private func answer(_ id: Int, _ outcome: Outcome) {
        let continuation = pending.withLock { pending -> CheckedContinuation<Outcome, Never>? in
            defer { pending[id]?.continuation = nil }
            return pending[id]?.continuation
        }
        continuation?.resume(returning: outcome)
    }

    // MARK: URLSessionDataDelegate

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        answer(dataTask.taskIdentifier, .success((response as? HTTPURLResponse)?.statusCode ?? 0))
        completionHandler(.cancel)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        if let status = (task.response as? HTTPURLResponse)?.statusCode {
            answer(task.taskIdentifier, .success(status))
        } else {
            answer(task.taskIdentifier, .failure(.failed(error?.localizedDescription ?? "no answer")))
        }
        guard let ending = pending.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        ending.timer?.cancel()
        ending.ended()
    }
}
