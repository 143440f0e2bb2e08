import Foundation
import HTTPTestSupport
import Locking
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The real `alertd` as a child process, on a data dir (or memory-only), that a test can SIGKILL and start again on
/// the same data dir and port, as a crash and a restart would. Requests go to whichever process is current.
final class DurableAlertd: Sendable {
    /// The data dir (`--data-dir`), or nil for a memory-only alertd.
    let dataDirectory: String?
    private let arguments: [String]
    private let environment: [String: String]
    private let state = Lock(State())

    private struct State {
        var child: ChildProcess?
        var port = 0
        var starts = 0
        var startLines: [String] = []
    }

    /// - Parameters:
    ///   - dataDirectory: `--data-dir`, or nil for memory-only.
    ///   - arguments: more command-line arguments.
    ///   - environment: variables added to the test's environment (which loses its `ALERTD_*` settings, so that a
    ///     caller's shell does not change what the test runs).
    init(dataDirectory: String?, arguments: [String] = [], environment: [String: String] = [:]) {
        self.dataDirectory = dataDirectory
        self.arguments = arguments
        self.environment = Self.environment(adding: environment)
    }

    deinit {
        if let child = state.withLock({ $0.child }) { child.send(SIGKILL) }
    }

    /// The port of the current (or last) process.
    var port: Int { state.withLock { $0.port } }

    /// How many processes were started.
    var starts: Int { state.withLock { $0.starts } }

    /// The current (or last) process.
    var child: ChildProcess? { state.withLock { $0.child } }

    /// The line each start printed with "listening on", in order.
    var startLines: [String] { state.withLock { $0.startLines } }

    /// What the current process wrote on standard error so far (its last 4 KB).
    var standardErrorTail: String { String(child?.standardError.suffix(4096) ?? "") }

    // MARK: lifecycle

    /// Starts alertd (on the port the last process had, else a free one), waits for its "listening on" line, then
    /// for `/healthz` to answer.
    ///
    /// After a SIGKILL the port is free at once (libmicrohttpd listens with `SO_REUSEADDR`); should another socket
    /// have taken it meanwhile, the last attempt takes any free port, which `port` then tells.
    func start() async throws {
        let executable = BuiltProduct.path("alertd")
        try #require(FileManager.default.isExecutableFile(atPath: executable),
                     "build alertd first (swift build): not found next to \(CommandLine.arguments[0])")
        let wanted = port
        let attempts = wanted == 0 ? 1 : 3
        for attempt in 1...attempts {
            let port = attempt == attempts && attempts > 1 ? 0 : wanted
            let child = try ChildProcess(executable, commandLine(port: port), environment: environment)
            switch await Self.awaitListening(child) {
            case .listening(let line, let bound):
                state.withLock { state in
                    state.child = child
                    state.port = bound
                    state.starts += 1
                    state.startLines.append(line)
                }
                if attempt > 1 { print("DurableAlertd: port \(wanted) was taken; alertd now listens on \(bound)") }
                try await awaitHealthy()
                return
            case .exited where attempt < attempts && Self.lostThePort(child.standardError):
                continue
            case .exited(let status):
                throw RawHTTPError(description: "alertd exited (\(status)) before listening: \(child.standardError)")
            case .silent:
                child.send(SIGKILL)
                throw RawHTTPError(description: "alertd printed no 'listening on' line in time; stdout: "
                    + "\(child.standardOutput) stderr: \(child.standardError)")
            }
        }
    }

    /// SIGKILLs the current process and waits until it is gone.
    func kill() async throws {
        guard let child else { return }
        Glibc.kill(child.pid, SIGKILL)
        guard await child.wait(timeout: TestTime.bound(10)) != nil else {
            throw RawHTTPError(description: "alertd \(child.pid) still running 10 s after SIGKILL")
        }
    }

    /// Stops the current process with SIGTERM (a clean shutdown) and waits for it; SIGKILL if it takes too long.
    /// - Returns: its exit status, nil when it had to be killed.
    @discardableResult
    func stop() async -> Int32? {
        guard let child, child.isRunning else { return child?.exitStatus }
        child.send(SIGTERM)
        return await child.wait(timeout: TestTime.bound(20))
    }

    /// Polls `/healthz` until it answers (200, or 503 for a degraded alertd) or the deadline passes.
    func awaitHealthy() async throws {
        let deadline = Date().addingTimeInterval(TestTime.bound(20))
        var last = "no answer"
        while Date() < deadline {
            if let response = try? await send("GET", "/healthz", timeout: 2) {
                if response.status == 200 || response.status == 503 { return }
                last = "\(response)"
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw RawHTTPError(description: "alertd on port \(port) never answered /healthz: \(last)")
    }

    // MARK: requests

    /// One request on a connection of its own to the current process.
    func send(
        _ method: String, _ target: String, body: String? = nil, headers: [(String, String)] = [],
        timeout: Double = TestTime.bound(30)
    ) async throws -> WireResponse {
        try await RawHTTP.exchange(
            RawHTTP.request(method, target, headers: headers, body: body.map { Array($0.utf8) }),
            port: port, timeout: timeout)
    }

    // MARK: starting

    private func commandLine(port: Int) -> [String] {
        var line = ["--host", "127.0.0.1", "--port", String(port)]
        if let dataDirectory { line += ["--data-dir", dataDirectory] }
        return line + arguments
    }

    /// The test's environment without `ALERTD_*` settings, plus `adding`.
    static func environment(adding: [String: String]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("ALERTD_") }
        environment.merge(adding) { $1 }
        return environment
    }

    private enum Start {
        case listening(line: String, port: Int)
        case exited(Int32)
        case silent
    }

    /// Waits for the line with "listening on" (wherever it is in standard output), or the exit.
    private static func awaitListening(_ child: ChildProcess) async -> Start {
        let deadline = Date().addingTimeInterval(TestTime.bound(30))
        while Date() < deadline {
            let output = child.standardOutput
            if let line = output.split(separator: "\n").first(where: { $0.contains("listening on") }),
               let port = listeningPort(in: String(line)) {
                return .listening(line: String(line), port: port)
            }
            if let status = child.exitStatus {
                _ = await child.wait(timeout: 5)
                return .exited(status)
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return .silent
    }

    /// The port of `http://host:port` in a start line.
    static func listeningPort(in line: String) -> Int? {
        let address = /listening on https?:\/\/(\[[^\]]*\]|[^\s:\/]+):(\d+)/
        return line.firstMatch(of: address).flatMap { Int($0.output.2) }
    }

    /// Whether alertd failed because the port was taken.
    private static func lostThePort(_ errors: String) -> Bool {
        let text = errors.lowercased()
        return text.contains("in use") || text.contains("bind")
    }
}
