import Foundation
import HTTPTestSupport
import Testing

/// What an alertd that should refuse to start did: its exit status and what it wrote, or that it listened anyway.
struct AlertdRefusal: CustomStringConvertible {
    /// The exit status; nil when it started listening instead (it was then killed).
    let status: Int32?
    let standardOutput: String
    let standardError: String

    /// Starts `alertd --data-dir DIR` on a free port and waits for it to exit, or to listen (it is then killed).
    /// - Parameters:
    ///   - dataDirectory: `--data-dir`.
    ///   - environment: variables added to the test's environment (without its `ALERTD_*` settings).
    init(dataDirectory: String, environment: [String: String] = [:]) async throws {
        let executable = BuiltProduct.path("alertd")
        try #require(FileManager.default.isExecutableFile(atPath: executable), "build alertd first (swift build)")
        let child = try ChildProcess(
            executable, ["--host", "127.0.0.1", "--port", "0", "--data-dir", dataDirectory],
            environment: DurableAlertd.environment(adding: environment))
        let deadline = ContinuousClock.now + TestTime.bound(.seconds(30))
        while child.isRunning, !child.standardOutput.contains("listening on"), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        if child.isRunning { child.send(SIGKILL) }
        let exit = await child.wait(timeout: TestTime.bound(10))
        status = child.standardOutput.contains("listening on") ? nil : exit
        standardOutput = child.standardOutput
        standardError = child.standardError
    }

    /// It exited with a failure status without listening.
    var refused: Bool { (status ?? 0) != 0 }

    var description: String {
        "exit \(status.map(String.init) ?? "none (it listened)"); stdout: '\(standardOutput)'; "
            + "stderr: '\(standardError)'"
    }
}
