import AlertServer
import AlertClient
import AlertdTestSupport
import Foundation
import HTTPTestSupport
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

    /// Waits until the store holds `count` waiters (`AlertdApp.waitForWaiters`); fails the test when it never does.
    func waitForWaiters(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async {
        let (held, waiters) = await app.waitForWaiters(count)
        #expect(held, "the store never held \(count) waiters (it holds \(waiters))", sourceLocation: sourceLocation)
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

/// Waits until `client` sees the only pending alert for `presenter` and returns it.
func pendingAlert(_ client: AlertClient, presenter: String = "root") async throws -> RemoteAlert {
    var found: RemoteAlert?
    _ = try await TestTime.until(every: .milliseconds(20)) {
        found = try await client.list(presenter: presenter).alerts.first
        return found != nil
    }
    guard let found else { throw TestFailure("no pending alert for \(presenter)") }
    return found
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
