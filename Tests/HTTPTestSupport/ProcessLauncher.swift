import Foundation
import Synchronization

/// Launches child processes one at a time. Foundation's `Process.run()` on Linux is not safe
/// to call from several threads at once (it has crashed copying its arguments when tests
/// started processes in parallel), and tests run in parallel.
public enum ProcessLauncher {
    private static let lock = Mutex(())

    /// Runs `process` (configured, not yet started).
    public static func run(_ process: Process) throws {
        try lock.withLock { _ in try process.run() }
    }

    /// Waits, without blocking Swift's cooperative pool, until `process` exits or `timeout` passes.
    /// - Returns: the exit status, or nil if it was still running (it is then terminated).
    public static func exitStatus(of process: Process, timeout: Double) async -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        if process.isRunning {
            process.terminate()
            return nil
        }
        return process.terminationStatus
    }
}
