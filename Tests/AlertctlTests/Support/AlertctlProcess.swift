import Foundation
import HTTPTestSupport
import Synchronization
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
    private let process: Process
    /// Shared with the reader threads, which must not keep `self` alive (its `deinit` stops the process).
    private let output = CapturedOutput()

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

    /// Starts `alertctl arguments...` with `environment` added to a clean copy of this process's (no `ALERTD_URL`).
    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        let executable = Self.executable
        try #require(FileManager.default.isExecutableFile(atPath: executable.path),
                     "build alertctl first (swift build): not found next to \(CommandLine.arguments[0])")
        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var childEnvironment = ProcessInfo.processInfo.environment
        childEnvironment["ALERTD_URL"] = nil
        childEnvironment.merge(environment) { $1 }
        process.environment = childEnvironment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try ProcessLauncher.run(process)
        read(out.fileHandleForReading, standardError: false)
        read(err.fileHandleForReading, standardError: true)
    }

    /// Reads a pipe to its end on a thread of its own.
    private func read(_ handle: FileHandle, standardError: Bool) {
        let output = output
        Thread {
            // `availableData` returns what one read(2) got (`read(upToCount:)` would wait for all 4096 bytes).
            while case let chunk = handle.availableData, !chunk.isEmpty {
                output.append(chunk, standardError: standardError)
            }
            output.finishReader()
        }.start()
    }

    /// Standard output so far.
    var stdoutSoFar: String { output.stdout }

    /// Waits until standard output contains `text` (at most `timeout`).
    func waitForOutput(containing text: String, timeout: Duration = .seconds(15)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !stdoutSoFar.contains(text) {
            guard ContinuousClock.now < deadline else {
                throw AlertctlTestError("no '\(text)' in alertctl's output within \(timeout): \(stdoutSoFar)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Whether the process is still running.
    var isRunning: Bool { process.isRunning }

    /// Sends SIGINT, as Ctrl-C does.
    func interrupt() {
        process.interrupt()
    }

    /// Waits for the exit (at most `timeout`) and returns the output.
    func finish(timeout: Duration = .seconds(30)) async throws -> AlertctlOutput {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning || !output.isComplete {
            guard ContinuousClock.now < deadline else {
                process.terminate()
                throw AlertctlTestError("alertctl still running after \(timeout): \(stdoutSoFar)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        return AlertctlOutput(status: process.terminationStatus, stdout: output.stdout, stderr: output.stderr)
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    /// Runs `alertctl arguments...` to the end.
    static func run(_ arguments: [String], environment: [String: String] = [:], timeout: Duration = .seconds(30))
        async throws -> AlertctlOutput
    {
        try await AlertctlProcess(arguments, environment: environment).finish(timeout: timeout)
    }
}

/// What the reader threads collected from the child's standard output and standard error.
private final class CapturedOutput: Sendable {
    private let buffers = Mutex((stdout: Data(), stderr: Data(), finishedReaders: 0))

    func append(_ chunk: Data, standardError: Bool) {
        buffers.withLock { buffers in
            if standardError { buffers.stderr.append(chunk) } else { buffers.stdout.append(chunk) }
        }
    }

    func finishReader() {
        buffers.withLock { $0.finishedReaders += 1 }
    }

    /// Both pipes reached their end.
    var isComplete: Bool { buffers.withLock { $0.finishedReaders == 2 } }
    var stdout: String { String(decoding: buffers.withLock { $0.stdout }, as: UTF8.self) }
    var stderr: String { String(decoding: buffers.withLock { $0.stderr }, as: UTF8.self) }
}

struct AlertctlTestError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
