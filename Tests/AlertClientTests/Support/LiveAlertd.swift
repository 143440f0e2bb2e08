import AlertAPI
import AlertClient
import AlertdTestSupport
import Foundation
import Locking
import Testing

/// A real alertd in this process on 127.0.0.1, and AlertClients pointed at it.
struct LiveAlertd {
    let app: AlertdApp

    var port: Int { app.port }
    var url: URL { URL(string: app.url)! }

    /// A client for this server; `pollWait` short so tests see long-poll time-outs.
    func client(pollWait: Int = 60) -> AlertClient {
        AlertClient(baseURL: url, pollWait: pollWait)
    }

    /// Starts a server on `port` (0: any free port).
    static func start(port: Int = 0) throws -> LiveAlertd {
        LiveAlertd(app: try TestAlertd.start(port: port))
    }

    /// Starts a server on a free port, runs `body`, then shuts it down.
    static func with(_ body: (LiveAlertd) async throws -> Void) async throws {
        try await TestAlertd.with { app in try await body(LiveAlertd(app: app)) }
    }
}

/// The seeds' login alert: a username and a secure password field.
let loginInput = AlertInput(
    title: "Login", message: "Enter your credentials", buttons: ["Cancel", "Log in"],
    fields: [FieldInput(placeholder: "Username"), FieldInput(placeholder: "Password", secure: true)])

/// Polls `condition` every 20 ms for at most `timeout`; true once it holds.
func eventually(timeout: Duration = .seconds(10), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}

/// Waits until `client` sees the only pending alert for `presenter` and returns it.
func pendingAlert(_ client: AlertClient, presenter: String = "root") async throws -> RemoteAlert {
    for _ in 0..<500 {
        if let alert = try await client.list(presenter: presenter).alerts.first { return alert }
        try await Task.sleep(for: .milliseconds(20))
    }
    throw TestFailure("no pending alert for \(presenter)")
}

/// A failure with a message.
struct TestFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// A Boolean that a `@Sendable` closure can set.
final class Flag: Sendable {
    private let value = Lock(false)

    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}
