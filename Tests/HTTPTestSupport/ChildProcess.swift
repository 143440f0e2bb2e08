import Foundation
import Locking

#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, its standard output and error read on threads
/// of their own, and its exit awaited by polling, so Swift's cooperative pool never blocks.
///
/// Not Foundation's `Process`: on Linux, `Process.run()` crashed (in `memcpy`) when the
/// parallel test suite started children, even one at a time; and it hands children the
/// caller's blocked signal mask. Children here start with an empty mask and default signal
/// actions.
public final class ChildProcess: Sendable {
    /// The child's process id.
    public let pid: pid_t
    private let output = Collected()
    private let errors = Collected()
    private let status = Lock<Int32?>(nil)

    /// Bytes read from one pipe, and whether it reached its end.
    private final class Collected: Sendable {
        let state = Lock((bytes: [UInt8](), ended: false))
        var text: String { state.withLock { String(decoding: $0.bytes, as: UTF8.self) } }
        var ended: Bool { state.withLock { $0.ended } }
    }

    /// Starts `executable` with `arguments`.
    /// - Parameters:
    ///   - executable: the program's path.
    ///   - arguments: its arguments (without the program name).
    ///   - environment: its whole environment.
    ///   - standardInput: the file its standard input reads (`/dev/null` unless given).
    public init(_ executable: String, _ arguments: [String],
                environment: [String: String] = ProcessInfo.processInfo.environment,
                standardInput: String = "/dev/null") throws {
        var outPipe: [Int32] = [0, 0]
        var errPipe: [Int32] = [0, 0]
        guard pipe(&outPipe) == 0, pipe(&errPipe) == 0 else {
            throw RawHTTPError(description: "pipe: errno \(errno)")
        }
        // Other children started meanwhile must not inherit these ends (a pipe would never see its end).
        for descriptor in outPipe + errPipe { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, standardInput, O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)

        let spawned = Spawn.start(executable, arguments, environment: environment, actions: &actions)
        close(outPipe[1])
        close(errPipe[1])
        let child: pid_t
        do {
            child = try spawned.get()
        } catch {
            close(outPipe[0])
            close(errPipe[0])
            throw error
        }
        pid = child
        Self.drain(outPipe[0], into: output)
        Self.drain(errPipe[0], into: errors)
    }

    private static func drain(_ descriptor: Int32, into collected: Collected) {
        Thread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                collected.state.withLock { $0.bytes += buffer[0..<count] }
            }
            close(descriptor)
            collected.state.withLock { $0.ended = true }
        }.start()
    }

    /// Standard output so far.
    public var standardOutput: String { output.text }
    /// Standard error so far.
    public var standardError: String { errors.text }
    /// Whether both output pipes reached their end.
    public var outputComplete: Bool { output.ended && errors.ended }

    /// The exit status (128 + signal for a signal), or nil while it runs.
    public var exitStatus: Int32? {
        status.withLock { known in
            if let known { return known }
            var raw: Int32 = 0
            guard waitpid(pid, &raw, WNOHANG) == pid else { return nil }
            known = Spawn.exitCode(raw)
            return known
        }
    }

    /// Whether the child is still running.
    public var isRunning: Bool { exitStatus == nil }

    /// Sends `signal` (SIGTERM, SIGINT...) unless the child has exited.
    public func send(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Waits until the child exits and its output is read, or `timeout` seconds pass (it is then killed).
    /// - Returns: the exit status, or nil when it had to be killed.
    public func wait(timeout: Double) async -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while isRunning || !outputComplete, Date() < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        if isRunning {
            send(SIGKILL)
            return nil
        }
        return exitStatus
    }

    /// Waits until standard output holds a whole line, and returns the first.
    public func firstLine(timeout: Double) async -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let text = standardOutput
            if let newline = text.firstIndex(of: "\n") { return String(text[..<newline]) }
            if output.ended { return text.isEmpty ? nil : text }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return nil
    }

    deinit {
        if isRunning {
            kill(pid, SIGKILL)
            var raw: Int32 = 0
            waitpid(pid, &raw, 0)
        }
    }
}
