import AlertAPI

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

    /// Starts a server, runs `body` with it, and shuts it down whether `body` throws or not.
    public static func with(
        _ configure: (inout AlertdConfiguration) -> Void = { _ in }, _ body: (AlertdApp) async throws -> Void
    ) async throws {
        let app = try start(configure)
        do {
            try await body(app)
        } catch {
            await app.shutdown()
            throw error
        }
        await app.shutdown()
    }
}
