import Foundation
import Locking

#if canImport(Glibc)
import Glibc
#endif

/// The real `alertd` executable as a child process on 127.0.0.1, the one way the tests launch it: memory-only or on a
/// data dir, with more arguments and environment variables, under a lower file limit; a test can SIGKILL it and
/// start it again on the same data dir and port, as a crash and a restart would. Requests go to whichever process is
/// current. (Tests of the routes that need no process build `AlertdApp` in process: `AlertdTestSupport`.)
public final class AlertdProcess: Sendable {
    /// The data dir (`--data-dir`), or nil for a memory-only alertd.
    public let dataDirectory: String?
    private let arguments: [String]
    private let environment: [String: String]
    private let fileLimit: Int?
    private let state = Lock(State())

    private struct State {
        var child: ChildProcess?
        var port = 0
        var starts = 0
        var startLines: [String] = []
    }

    /// The built `alertd` next to the test bundle (`swift build` puts both in one folder).
    public static var executable: String { BuiltProduct.path("alertd") }

    /// Prepares a process; `start()` starts it.
    /// - Parameters:
    ///   - dataDirectory: `--data-dir`, or nil for memory-only.
    ///   - arguments: more command-line arguments.
    ///   - environment: variables added to the test's environment (which loses its `ALERTD_*` settings, so that a
    ///     caller's shell does not change what the test runs).
    ///   - fileLimit: when given, alertd runs with this `RLIMIT_NOFILE` (soft and hard), through `sh -c 'ulimit -n'`.
    public init(dataDirectory: String? = nil, arguments: [String] = [], environment: [String: String] = [:],
                fileLimit: Int? = nil) {
        self.dataDirectory = dataDirectory
        self.arguments = arguments
        self.environment = Self.environment(adding: environment)
        self.fileLimit = fileLimit
    }

    /// Starts a process (see `init` and `start()`) and returns it once it serves.
    public static func start(dataDirectory: String? = nil, arguments: [String] = [],
                             environment: [String: String] = [:], fileLimit: Int? = nil) async throws -> AlertdProcess {
        let process = AlertdProcess(dataDirectory: dataDirectory, arguments: arguments, environment: environment,
                                    fileLimit: fileLimit)
        try await process.start()
        return process
    }

    deinit {
        if let child = state.withLock({ $0.child }) { child.send(SIGKILL) }
    }

    /// The port of the current (or last) process.
    public var port: Int { state.withLock { $0.port } }

    /// How many processes were started.
    public var starts: Int { state.withLock { $0.starts } }

    /// The current (or last) process.
    public var child: ChildProcess? { state.withLock { $0.child } }

    /// The current (or last) process's id; 0 before the first start.
    public var pid: pid_t { child?.pid ?? 0 }

    /// Whether the current process runs.
    public var isRunning: Bool { child?.isRunning ?? false }

    /// The line each start printed with "listening on", in order.
    public var startLines: [String] { state.withLock { $0.startLines } }

    /// What the current process wrote on standard output so far.
    public var standardOutput: String { child?.standardOutput ?? "" }

    /// What the current process wrote on standard error so far.
    public var standardError: String { child?.standardError ?? "" }

    /// The last 4 KB of `standardError`.
    public var standardErrorTail: String { String(standardError.suffix(4096)) }

    // MARK: lifecycle

    /// Starts alertd (on the port the last process had, else a free one), waits for its "listening on" line, then,
    /// on a data dir, for `/healthz` to answer (a memory-only alertd is not asked: its access log holds only the
    /// test's requests).
    ///
    /// After a SIGKILL the port is free at once (libmicrohttpd listens with `SO_REUSEADDR`); should another socket
    /// have taken it meanwhile, the last attempt takes any free port, which `port` then tells.
    public func start() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable) else {
            throw RawHTTPError(description: "build alertd first (swift build): not found next to "
                + CommandLine.arguments[0])
        }
        let wanted = port
        let attempts = wanted == 0 ? 1 : 3
        for attempt in 1...attempts {
            let port = attempt == attempts && attempts > 1 ? 0 : wanted
            let child = try launch(commandLine(port: port))
            switch await Self.awaitListening(child) {
            case .listening(let line, let bound):
                state.withLock { state in
                    state.child = child
                    state.port = bound
                    state.starts += 1
                    state.startLines.append(line)
                }
                if attempt > 1 { print("AlertdProcess: port \(wanted) was taken; alertd now listens on \(bound)") }
                if dataDirectory != nil { try await awaitHealthy() }
                return
            case .exited where attempt < attempts && Self.lostThePort(child.standardError):
                continue
            case .exited(let status):
                throw RawHTTPError(description: "alertd exited (\(status)) before listening: \(child.standardError)")
            case .silent:
                child.send(SIGKILL)
                _ = await child.wait(timeout: 5)
                throw RawHTTPError(description: "alertd printed no 'listening on' line in time; stdout: "
                    + "\(child.standardOutput) stderr: \(child.standardError)")
            }
        }
    }

    /// Sends `signal` to the current process (e.g. SIGTERM, SIGHUP, SIGSTOP).
    public func send(_ signal: Int32) {
        child?.send(signal)
    }

    /// SIGKILLs the current process and waits until it is gone.
    public func kill() async throws {
        guard let child else { return }
        Glibc.kill(child.pid, SIGKILL)
        guard await child.wait(timeout: TestTime.bound(10)) != nil else {
            throw RawHTTPError(description: "alertd \(child.pid) still running 10 s after SIGKILL")
        }
    }

    /// Stops the current process with SIGTERM (a clean shutdown) and waits for it; SIGKILL if it takes too long.
    /// - Returns: its exit status, nil when it had to be killed.
    @discardableResult
    public func stop() async -> Int32? {
        guard let child, child.isRunning else { return child?.exitStatus }
        child.send(SIGTERM)
        if let status = await child.wait(timeout: TestTime.bound(20)) { return status }
        child.send(SIGKILL)
        _ = await child.wait(timeout: 5)
        return nil
    }

    /// Waits for the current process to exit (at most `timeout` seconds) and returns its status.
    public func exitStatus(timeout: Double) async throws -> Int32 {
        guard let status = await child?.wait(timeout: timeout) else {
            throw RawHTTPError(description: "alertd still running \(timeout) s after the signal")
        }
        return status
    }

    /// Polls `/healthz` until it answers (200, or 503 for a degraded alertd) or the deadline passes.
    public func awaitHealthy() async throws {
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

    // MARK: observing

    /// A size in kB from `/proc/<pid>/status` (`VmRSS`, `VmHWM`), or nil when the process is gone.
    public func memory(_ field: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") }
        return line?.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }

    /// The value of one sample of `/metrics` (`name` with its labels, as the line starts), or nil when it is absent.
    /// - Parameter token: an admin token, when alertd requires one for `/metrics`.
    public func metric(_ name: String, token: String? = nil) async throws -> Double? {
        let headers = token.map { [("Authorization", "Bearer \($0)")] } ?? []
        let text = try await send("GET", "/metrics", headers: headers).text
        let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") }
    }

    /// Waits until its store holds `count` waiters (`/metrics` `alertd_waiters`).
    /// - Returns: whether it did, and the last count read (nil when none was).
    public func awaitWaiters(_ count: Int, token: String? = nil) async -> (held: Bool, waiters: Int?) {
        var waiters: Int?
        let held = await TestTime.until(every: .milliseconds(20)) {
            waiters = (try? await self.metric("alertd_waiters", token: token)).flatMap { $0 }.map { Int($0) } ?? waiters
            return waiters == count
        }
        return (held, waiters)
    }

    // MARK: requests

    /// One request on a connection of its own to the current process.
    public func send(
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

    private func launch(_ arguments: [String]) throws -> ChildProcess {
        guard let fileLimit else { return try ChildProcess(Self.executable, arguments, environment: environment) }
        // `exec` keeps the pid: `child.pid` is alertd's.
        return try ChildProcess("/bin/sh", ["-c", "ulimit -n \(fileLimit) && exec \"$@\"", "sh", Self.executable]
            + arguments, environment: environment)
    }

    /// The test's environment without `ALERTD_*` settings, plus `adding`.
    public static func environment(adding: [String: String]) -> [String: String] {
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
    public static func listeningPort(in line: String) -> Int? {
        let address = /listening on https?:\/\/(\[[^\]]*\]|[^\s:\/]+):(\d+)/
        return line.firstMatch(of: address).flatMap { Int($0.output.2) }
    }

    /// Whether alertd failed because the port was taken.
    private static func lostThePort(_ errors: String) -> Bool {
        let text = errors.lowercased()
        return text.contains("in use") || text.contains("bind")
    }
}

extension AlertdProcess {
    /// What one run of `alertd` that is to exit did (a refusal to start, `backup`, `restore`): its exit status and
    /// what it wrote, or that it listened instead.
    public struct Outcome: CustomStringConvertible, Sendable {
        /// The exit status; nil when it started listening instead, or still ran at the deadline (it was then killed).
        public let status: Int32?
        public let standardOutput: String
        public let standardError: String

        /// It exited with a failure status without listening.
        public var refused: Bool { (status ?? 0) != 0 }

        public var description: String {
            "exit \(status.map(String.init) ?? "none (it listened, or ran on)"); stdout: '\(standardOutput)'; "
                + "stderr: '\(standardError)'"
        }
    }

    /// Runs `alertd arguments…` until it exits, it prints its "listening on" line, or `timeout` seconds pass; one
    /// that listens or runs on is killed.
    /// - Parameter environment: variables added to the test's environment (without its `ALERTD_*` settings).
    public static func run(_ arguments: [String], environment: [String: String] = [:],
                           timeout: Double = TestTime.bound(30)) async throws -> Outcome {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw RawHTTPError(description: "build alertd first (swift build)")
        }
        let child = try ChildProcess(executable, arguments, environment: Self.environment(adding: environment))
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
        while child.isRunning, !child.standardOutput.contains("listening on"), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        let ranOn = child.isRunning
        if ranOn { child.send(SIGKILL) }
        let exit = await child.wait(timeout: TestTime.bound(10))
        return Outcome(status: ranOn ? nil : exit, standardOutput: child.standardOutput,
                       standardError: child.standardError)
    }

    /// Starts `alertd --data-dir DIR` on a free port and waits for it to exit, or to listen (it is then killed).
    /// - Parameters:
    ///   - dataDirectory: `--data-dir`.
    ///   - environment: variables added to the test's environment (without its `ALERTD_*` settings).
    public static func refusal(dataDirectory: String, environment: [String: String] = [:]) async throws -> Outcome {
        try await run(["--host", "127.0.0.1", "--port", "0", "--data-dir", dataDirectory], environment: environment)
    }
}
