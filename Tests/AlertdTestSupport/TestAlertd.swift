import AlertServer
import AlertJournal
import Foundation
import HTTPTestSupport

/// A real alertd in the test process, on 127.0.0.1: what every integration test target starts.
public enum TestAlertd {
    /// The test configuration: loopback, `port` (0 picks a free one), no log output, a short
    /// shutdown grace; `configure` adjusts it.
    public static func configuration(
        port: Int = 0, _ configure: (inout AlertdConfiguration) -> Void = { _ in }
    ) -> AlertdConfiguration {
        var configuration = AlertdConfiguration()
        configuration.http.host = "127.0.0.1"
        configuration.http.port = port
        configuration.shutdownGrace = .seconds(2)
        configuration.logDescriptor = nil  // tests read responses, not logs; log tests run the real binary
        configure(&configuration)
        return configuration
    }

    /// Starts a server; the caller shuts it down (`shutdown()`).
    public static func start(
        port: Int = 0, _ configure: (inout AlertdConfiguration) -> Void = { _ in }
    ) throws -> AlertdApp {
        try AlertdApp(configuration: configuration(port: port, configure))
    }

    /// Starts a server, runs `body` with it, and shuts it down whether `body` throws or not. A data dir that this
    /// process closed a moment ago may still read as held by it (`JournalOpenError.isHeldByThisProcess`): that passes.
    public static func with(
        _ configure: (inout AlertdConfiguration) -> Void = { _ in }, _ body: (AlertdApp) async throws -> Void
    ) async throws {
        let app = try await TestTime.retrying(while: JournalOpenError.isHeldByThisProcess) { try start(configure) }
        do {
            try await body(app)
        } catch {
            await app.shutdown()
            throw error
        }
        await app.shutdown()
    }
}

extension AlertdApp {
    /// Waits (`TestTime.until`) until the store holds `count` waiters: long-polls, blocking queries and event
    /// streams, as `/metrics` `alertd_waiters` counts them. How a test knows that the requests it started wait
    /// before it acts, instead of sleeping and hoping.
    /// - Returns: whether it did; the count it holds last.
    public func waitForWaiters(_ count: Int) async -> (held: Bool, waiters: Int) {
        let store = store
        let held = await TestTime.until { await store.statistics.waiters == count }
        return (held, await store.statistics.waiters)
    }
}

extension JournalOpenError {
    /// Whether `error` says that this very process holds the data dir. Right after this process closed a journal,
    /// that passes by itself: a child that another test spawned at that moment holds a copy of the lock's open file
    /// (and with it the `flock`) from its fork until its exec closes it.
    public static func isHeldByThisProcess(_ error: any Error) -> Bool {
        (error as? JournalOpenError)?.reason == .locked(pid: getpid())
    }
}
