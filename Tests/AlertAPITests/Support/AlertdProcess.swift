import Foundation
import HTTPTestSupport
import Testing

/// The real `alertd` executable, started as a child process on an ephemeral port.
final class AlertdProcess: Sendable {
    let child: ChildProcess
    let port: Int

    /// The built `alertd` next to the test bundle (`swift build` puts both in one folder).
    static var executable: URL { BuiltProduct.url("alertd") }

    /// Starts `alertd --port 0 arguments...` and waits for its "listening on" line.
    /// - Parameters:
    ///   - arguments: more command-line arguments.
    ///   - captureStandardError: kept for callers; standard error is always captured (`standardError`).
    ///   - fileLimit: when given, alertd runs with this `RLIMIT_NOFILE` (soft and hard), through `sh -c 'ulimit -n'`.
    init(arguments: [String] = [], captureStandardError: Bool = false, fileLimit: Int? = nil) async throws {
        let executable = Self.executable
        try #require(FileManager.default.isExecutableFile(atPath: executable.path),
                     "build alertd first (swift build): not found next to \(CommandLine.arguments[0])")
        let command = [executable.path, "--host", "127.0.0.1", "--port", "0"] + arguments
        if let fileLimit {
            // `exec` keeps the pid: `child.pid` is alertd's.
            child = try ChildProcess("/bin/sh", ["-c", "ulimit -n \(fileLimit) && exec \"$@\"", "sh"] + command)
        } else {
            child = try ChildProcess(command[0], Array(command.dropFirst()))
        }
        let line = await child.firstLine(timeout: 30) ?? ""
        guard let port = line.split(separator: ":").last.flatMap({ Int($0) }), line.contains("listening on") else {
            child.send(SIGKILL)
            throw RawHTTPError(description: "alertd did not start: '\(line)' \(child.standardError)")
        }
        self.port = port
    }

    /// The process id.
    var pid: pid_t { child.pid }

    /// A size in kB from `/proc/<pid>/status` (`VmRSS`, `VmHWM`), or nil when the process is gone.
    func memory(_ field: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(child.pid)/status", encoding: .utf8) else { return nil }
        let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") }
        return line?.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }

    /// What the child wrote on standard error so far.
    var standardError: String { child.standardError }

    /// Sends `signal` (e.g. SIGTERM).
    func send(_ signal: Int32) {
        child.send(signal)
    }

    /// Waits until its store holds `count` waiters (`/metrics` `alertd_waiters`); fails the test when it never does.
    /// - Parameter token: an admin token, when alertd requires one for `/metrics`.
    func waitForWaiters(_ count: Int, token: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) async {
        let headers = token.map { [("Authorization", "Bearer \($0)")] } ?? []
        var gauge = "(no answer)"
        let held = await TestTime.until(every: .milliseconds(20)) {
            let metrics = try? await RawHTTP.exchange(RawHTTP.request("GET", "/metrics", headers: headers), port: port)
            let line = metrics?.text.split(separator: "\n").first { $0.hasPrefix("alertd_waiters ") }
            gauge = line.map(String.init) ?? gauge
            return gauge == "alertd_waiters \(count)"
        }
        if !held { Issue.record("alertd never held \(count) waiters: \(gauge)", sourceLocation: sourceLocation) }
    }

    /// Waits for the process to exit (at most `timeout` seconds) and returns its status.
    func exitStatus(timeout: Double) async throws -> Int32 {
        guard let status = await child.wait(timeout: timeout) else {
            throw RawHTTPError(description: "alertd still running \(timeout) s after the signal")
        }
        return status
    }
}
