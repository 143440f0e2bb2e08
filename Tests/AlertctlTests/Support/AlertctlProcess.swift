import Foundation
import HTTPTestSupport
import Testing

/// What a finished `alertctl` printed and how it exited.
struct AlertctlOutput: Sendable, CustomStringConvertible {
    let status: Int32
    let stdout: String
    let stderr: String

    /// Standard output split into lines (no trailing empty line).
    var lines: [String] {
        let lines = stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        return Array(lines.dropLast(stdout.hasSuffix("\n") ? 1 : 0))
    }

    /// Standard output parsed as one JSON object.
    var json: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any]
    }

    var description: String { "exit \(status)\nstdout: \(stdout)\nstderr: \(stderr)" }
}

/// The built `alertctl`, run as a child process. Output is read on threads and waiting polls, so the cooperative
/// pool (which the in-process server needs) is never blocked.
final class AlertctlProcess: Sendable {
    private let child: ChildProcess

    /// The built `alertctl` next to the test bundle (`swift build` puts both in one folder).
    static var executable: URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = bundle.deletingLastPathComponent()
        while !folder.path.isEmpty, folder.path != "/" {
            let candidate = folder.appendingPathComponent("alertctl")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: "/nonexistent/alertctl")
    }

    /// Starts `alertctl arguments...` with `environment` added to a clean copy of this process's (no `ALERTD_URL`),
    /// its standard input read from the file `standardInput`.
    init(_ arguments: [String], environment: [String: String] = [:], standardInput: String = "/dev/null") throws {
        let executable = Self.executable
        try #require(FileManager.default.isExecutableFile(atPath: executable.path),
                     "build alertctl first (swift build): not found next to \(CommandLine.arguments[0])")
        var childEnvironment = ProcessInfo.processInfo.environment
        childEnvironment["ALERTD_URL"] = nil
        childEnvironment.merge(environment) { $1 }
        child = try ChildProcess(
            executable.path, arguments, environment: childEnvironment, standardInput: standardInput
        )
    }

    /// Standard output so far.
    var stdoutSoFar: String { child.standardOutput }

    /// Waits until standard output (or, with `errors`, standard error) contains `text` (at most `timeout` seconds,
    /// stretched by `TestTime`).
    func waitForOutput(containing text: String, errors: Bool = false, timeout: Double = 15) async throws {
        let read = { errors ? self.child.standardError : self.child.standardOutput }
        guard await TestTime.until(timeout, every: .milliseconds(20), { read().contains(text) }) else {
            throw AlertctlTestError("no '\(text)' in alertctl's output within \(timeout) s: \(read())")
        }
    }

    /// Whether the process is still running.
    var isRunning: Bool { child.isRunning }

    /// Sends SIGINT, as Ctrl-C does.
    func interrupt() {
        child.send(SIGINT)
    }

    /// Waits for the exit (at most `timeout`) and returns the output.
    func finish(timeout: Duration = .seconds(30)) async throws -> AlertctlOutput {
        guard let status = await child.wait(timeout: TestTime.bound(timeout / .seconds(1))) else {
            throw AlertctlTestError("alertctl still running after \(timeout): \(stdoutSoFar)")
        }
        return AlertctlOutput(status: status, stdout: child.standardOutput, stderr: child.standardError)
    }

    /// Runs `alertctl arguments...` to the end.
    static func run(_ arguments: [String], environment: [String: String] = [:], timeout: Duration = .seconds(30))
        async throws -> AlertctlOutput
    {
        try await AlertctlProcess(arguments, environment: environment).finish(timeout: timeout)
    }
}

struct AlertctlTestError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
