import Foundation
import HTTPTestSupport
import Locking
import Testing

/// A real terminal for full-screen tests: a tmux server of its own (own socket, own config, no user settings)
/// running one command in a detached 120x40 window. Tests type with `send-keys` and read the screen with
/// `capture-pane`, polling until what they expect appears.
///
/// Every capture is checked against `forbid(_:)`: a test that must never show a secret says so once, and each
/// screen read from then on (including the polling ones) is checked.
final class TmuxSession: Sendable {
    /// The window the first command runs in.
    static let mainWindow = "main"

    private let directory: URL
    private var socket: String { directory.appendingPathComponent("tmux.sock").path }
    private let forbidden = Lock<[String]>([])
    private let captures = Lock(0)
    /// Variables set for every alertctl this session runs.
    private let environment: [String: String]

    /// Where tmux is, if it is installed.
    static var tmux: String? {
        ["/usr/bin/tmux", "/usr/local/bin/tmux", "/opt/homebrew/bin/tmux"]
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts a tmux server running `alertctl arguments...` in window `main`.
    private init(alertctl arguments: [String], columns: Int, rows: Int, environment: [String: String]) async throws {
        self.environment = environment
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("alertctl-tmux-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // remain-on-exit: a crashed or finished program leaves its pane (and exit status) to inspect.
        let configuration = """
            set -g remain-on-exit on
            set -g default-terminal screen
            set -g status off
            set -g history-limit 2000
            """
        try configuration.write(to: directory.appendingPathComponent("tmux.conf"), atomically: true, encoding: .utf8)
        try await run("new-session", "-d", "-s", "test", "-n", Self.mainWindow, "-x", "\(columns)", "-y", "\(rows)",
                      command(arguments, window: Self.mainWindow))
    }

    /// Runs `body` with a session running `alertctl arguments...`, then kills the tmux server.
    /// - Parameters:
    ///   - arguments: alertctl's arguments, such as `["--url", url, "dashboard"]`.
    ///   - columns: Window width.
    ///   - rows: Window height.
    ///   - environment: Variables set for alertctl (such as `ALERTD_TOKEN`).
    static func withAlertctl(
        _ arguments: [String], columns: Int = 120, rows: Int = 40, environment: [String: String] = [:],
        _ body: (TmuxSession) async throws -> Void
    ) async throws {
        let executable = AlertctlProcess.executable.path
        try #require(FileManager.default.isExecutableFile(atPath: executable), "build alertctl first (swift build)")
        let session = try await TmuxSession(alertctl: arguments, columns: columns, rows: rows, environment: environment)
        do {
            try await body(session)
        } catch {
            let screen = (try? await session.capture()) ?? "(no screen)"
            await session.close()
            Issue.record("screen when the test failed:\n\(screen)")
            throw error
        }
        await session.close()
    }

    /// The shell command line for `alertctl arguments...` in `window`: under a UTF-8 locale whatever the test
    /// runner's, and writing its exit status to a file when it ends (tmux learns a pane's status only when it
    /// gets around to reaping it, which can take seconds).
    private func command(_ arguments: [String], window: String) -> String {
        let script = #""$0" "$@"; echo $? > "$ALERTCTL_EXIT_FILE""#
        return Self.shellCommand(
            ["env", "-u", "TMUX", "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "ALERTCTL_EXIT_FILE=\(exitFile(window).path)"
            ] + environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            + ["sh", "-c", script, AlertctlProcess.executable.path] + arguments)
    }

    private func exitFile(_ window: String) -> URL {
        directory.appendingPathComponent("exit-\(window)")
    }

    /// Opens another window running `alertctl arguments...`; address it with `window:` afterwards.
    func openWindow(_ name: String, alertctl arguments: [String]) async throws {
        try await run("new-window", "-d", "-t", "test", "-n", name, command(arguments, window: name))
    }

    /// Kills the tmux server (and the programs in it) and removes its socket.
    func close() async {
        _ = try? await run("kill-server")
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: typing

    /// Sends key names (`Enter`, `Tab`, `BTab`, `Escape`, `Up`, `q`, …) to a window.
    func press(_ keys: String..., window: String = mainWindow) async throws {
        try await run(["send-keys", "-t", target(window)] + keys)
    }

    /// Types `text` literally (no key-name lookup).
    func type(_ text: String, window: String = mainWindow) async throws {
        try await run("send-keys", "-t", target(window), "-l", text)
    }

    /// Resizes the window (the program gets SIGWINCH).
    func resize(columns: Int, rows: Int, window: String = mainWindow) async throws {
        try await run("resize-window", "-t", target(window), "-x", "\(columns)", "-y", "\(rows)")
    }

    // MARK: reading

    /// From now on, every capture must not contain `text`; a capture that does fails the test.
    func forbid(_ text: String) {
        forbidden.withLock { $0.append(text) }
    }

    /// How many screens have been read (and checked against `forbid`).
    var captureCount: Int { captures.withLock { $0 } }

    /// The screen as text; with `escapes`, with the SGR sequences that colour it; with `history`, the scrollback
    /// too.
    @discardableResult
    func capture(window: String = mainWindow, escapes: Bool = false, history: Bool = false) async throws -> String {
        var arguments = ["capture-pane", "-p", "-t", target(window)]
        if escapes { arguments.append("-e") }
        if history { arguments += ["-S", "-"] }
        let screen = try await run(arguments)
        captures.withLock { $0 += 1 }
        for secret in forbidden.withLock({ $0 }) {
            #expect(!screen.contains(secret), "the screen showed a forbidden text:\n\(screen)")
        }
        return screen
    }

    /// Polls the screen until `predicate` holds; returns that screen.
    @discardableResult
    func waitUntil(
        window: String = mainWindow, escapes: Bool = false, timeout: Duration = .seconds(10),
        _ what: String, _ predicate: (String) -> Bool
    ) async throws -> String {
        let deadline = ContinuousClock.now + TestTime.bound(timeout)
        var screen = ""
        while ContinuousClock.now < deadline {
            screen = try await capture(window: window, escapes: escapes)
            if predicate(screen) { return screen }
            try await Task.sleep(for: .milliseconds(40))
        }
        throw AlertctlTestError("timed out after \(timeout) waiting for \(what); the screen:\n\(screen)")
    }

    /// Polls the screen until it contains every one of `texts`; returns that screen.
    @discardableResult
    func waitFor(_ texts: String..., window: String = mainWindow, timeout: Duration = .seconds(10))
        async throws -> String
    {
        try await waitUntil(window: window, timeout: timeout, texts.map { "'\($0)'" }.joined(separator: ", ")) {
            screen in texts.allSatisfy { screen.contains($0) }
        }
    }

    /// Polls until the screen no longer contains `text`.
    @discardableResult
    func waitForAbsence(of text: String, window: String = mainWindow) async throws -> String {
        try await waitUntil(window: window, "'\(text)' to go away") { !$0.contains(text) }
    }

    /// Whether the program rang the terminal's bell since the window was created (the session is never attached,
    /// so tmux keeps the flag).
    func bellRang(window: String = mainWindow) async throws -> Bool {
        try await run("display-message", "-p", "-t", target(window), "#{window_bell_flag}")
            .trimmingCharacters(in: .whitespacesAndNewlines) == "1"
    }

    /// Starts copying every byte the program writes to its terminal, escape sequences included, to a file; returns
    /// a function that reads what was written so far.
    func recordOutput(window: String = mainWindow) async throws -> @Sendable () -> String {
        let file = directory.appendingPathComponent("output-\(window)")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        try await run("pipe-pane", "-o", "-t", target(window), "cat >> " + Self.shellCommand([file.path]))
        return { String(decoding: (try? Data(contentsOf: file)) ?? Data(), as: UTF8.self) }
    }

    /// The exit status of the window's alertctl once it has exited, `nil` while it runs.
    func exitStatus(window: String = mainWindow) async throws -> Int32? {
        guard let text = try? String(contentsOf: exitFile(window), encoding: .utf8), text.hasSuffix("\n") else {
            return nil
        }
        return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Polls until the window's program exits; returns its status.
    func waitForExit(window: String = mainWindow, timeout: Duration = .seconds(10)) async throws -> Int32 {
        let deadline = ContinuousClock.now + TestTime.bound(timeout)
        while ContinuousClock.now < deadline {
            if let status = try await exitStatus(window: window) { return status }
            try await Task.sleep(for: .milliseconds(40))
        }
        throw AlertctlTestError("the program in \(window) still runs after \(timeout)")
    }

    // MARK: tmux

    private func target(_ window: String) -> String { "test:\(window)" }

    @discardableResult
    private func run(_ arguments: String...) async throws -> String {
        try await run(arguments)
    }

    /// Runs `tmux -S socket -f config arguments...` on a thread of its own (never blocking the cooperative pool,
    /// which the in-process server needs) and returns its standard output.
    @discardableResult
    private func run(_ arguments: [String]) async throws -> String {
        guard let tmux = Self.tmux else { throw AlertctlTestError("tmux is not installed (apt-get install tmux)") }
        let fullArguments = ["-S", socket, "-f", directory.appendingPathComponent("tmux.conf").path] + arguments
        return try await withCheckedThrowingContinuation { [directory] continuation in
            Thread {
                continuation.resume(with: Result { try Self.runBlocking(tmux, fullArguments, in: directory) })
            }.start()
        }
    }

    /// Runs tmux and waits for it (see `TmuxCommand`); fails unless it exits 0 (`kill-server` may fail).
    private static func runBlocking(_ tmux: String, _ arguments: [String], in directory: URL) throws -> String {
        let (status, output, errors) = try TmuxCommand.run(tmux, arguments, scratch: directory)
        guard status == 0 || arguments.contains("kill-server") else {
            throw AlertctlTestError("tmux \(arguments.joined(separator: " ")) failed (\(status)): \(errors)")
        }
        return output
    }

    /// `words` as one shell command line, each word single-quoted.
    private static func shellCommand(_ words: [String]) -> String {
        words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
    }
}
