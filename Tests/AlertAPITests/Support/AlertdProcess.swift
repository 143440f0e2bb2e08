import Foundation
import Synchronization
import Testing

/// The real `alertd` executable, started as a child process on an ephemeral port.
final class AlertdProcess: @unchecked Sendable {
    // `@unchecked Sendable` invariant: `process` and `output` are set in `init` and only
    // read afterwards; Foundation's Process is safe to signal and wait on from any thread.
    let process: Process
    let port: Int
    private let output: Pipe
    /// Standard error as read so far, when captured.
    private let errors = ByteBuffer()

    /// Bytes appended by one thread and read by others.
    private final class ByteBuffer: Sendable {
        let bytes = Mutex<[UInt8]>([])
    }

    /// The built `alertd` next to the test bundle (`swift build` puts both in one folder).
    static var executable: URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = bundle.deletingLastPathComponent()
        while !folder.path.isEmpty, folder.path != "/" {
            let candidate = folder.appendingPathComponent("alertd")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: "/nonexistent/alertd")
    }

    /// Starts `alertd --port 0 arguments...` and waits for its "listening on" line.
    /// - Parameters:
    ///   - arguments: more command-line arguments.
    ///   - captureStandardError: read the child's standard error (see `standardError`) instead of
    ///     letting it inherit the test's.
    init(arguments: [String] = [], captureStandardError: Bool = false) async throws {
        let executable = Self.executable
        try #require(FileManager.default.isExecutableFile(atPath: executable.path),
                     "build alertd first (swift build): not found next to \(CommandLine.arguments[0])")
        process = Process()
        process.executableURL = executable
        process.arguments = ["--host", "127.0.0.1", "--port", "0"] + arguments
        output = Pipe()
        process.standardOutput = output
        if captureStandardError {
            let errorPipe = Pipe()
            process.standardError = errorPipe
            let handle = errorPipe.fileHandleForReading
            Thread { [errors] in
                while let data = try? handle.read(upToCount: 65536), !data.isEmpty {
                    errors.bytes.withLock { $0 += data }
                }
            }.start()
        }
        try ProcessLauncher.run(process)
        let handle = output.fileHandleForReading
        let line: String = try await withCheckedThrowingContinuation { continuation in
            Thread {
                var bytes: [UInt8] = []
                while let byte = try? handle.read(upToCount: 1), let first = byte.first, first != 10 {
                    bytes.append(first)
                }
                continuation.resume(returning: String(decoding: bytes, as: UTF8.self))
            }.start()
        }
        guard let port = line.split(separator: ":").last.flatMap({ Int($0) }), line.contains("listening on") else {
            process.terminate()
            throw RawHTTPError(description: "alertd did not start: '\(line)'")
        }
        self.port = port
    }

    /// What the child wrote on standard error so far (empty unless captured).
    var standardError: String {
        errors.bytes.withLock { String(decoding: $0, as: UTF8.self) }
    }

    /// Sends `signal` (e.g. SIGTERM).
    func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits for the process to exit (at most `timeout` seconds) and returns its status.
    func exitStatus(timeout: Double) async throws -> Int32 {
        guard let status = await ProcessLauncher.exitStatus(of: process, timeout: timeout) else {
            throw RawHTTPError(description: "alertd still running \(timeout) s after the signal")
        }
        return status
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}
