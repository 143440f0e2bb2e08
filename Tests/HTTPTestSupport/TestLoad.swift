import Foundation
import Testing

/// How many test cases that start processes (alertd, alertctl, tmux, PostgreSQL, nginx, swiftc) run at once in one
/// test process, whatever the targets: `.spawnsProcesses` on a suite makes each of its test cases wait for a slot.
///
/// A plain `swift test` runs every target's tests at once, and Swift Testing starts them all: on two cores that was
/// 85 debug alertctl and 60 alertd at once, a load average of 90 to 260, and in-process servers whose 0.2 s timers
/// fired 50 s late. The other tests (in-process servers, the store, the parsers) are not held back: they are cheap.
/// `make test` runs one target at a time, under the same limit.
///
/// `ALERTD_TEST_PROCESS_WIDTH` sets the width (a number ≥ 1); by default two per core, at least four. A test with a
/// `.timeLimit` takes no slot: Swift Testing counts the wait for it against the limit.
public enum TestLoad {
    public static let width: Int = {
        if let text = ProcessInfo.processInfo.environment["ALERTD_TEST_PROCESS_WIDTH"], let width = Int(text),
           width >= 1 {
            return width
        }
        return max(4, 2 * ProcessInfo.processInfo.activeProcessorCount)
    }()

    private static let gate = Gate(width: width)

    /// Whether the current task holds a slot: a test case in nested suites, or its child tasks, takes one once.
    @TaskLocal private static var holding = false

    /// Runs `body` once a slot is free (at once when this task holds one already), and frees it after.
    public static func withSlot<T>(_ body: () async throws -> T) async rethrows -> T {
        if holding { return try await body() }
        await gate.enter()
        do {
            let value = try await $holding.withValue(true) { try await body() }
            await gate.leave()
            return value
        } catch {
            await gate.leave()
            throw error
        }
    }

    /// A counting semaphore whose waiters hold no thread.
    private actor Gate {
        private var free: Int
        private var waiting: [CheckedContinuation<Void, Never>] = []

        init(width: Int) {
            free = width
        }

        func enter() async {
            if free > 0 {
                free -= 1
                return
            }
            await withCheckedContinuation { waiting.append($0) }
        }

        /// Hands the slot to the longest waiter, or frees it.
        func leave() {
            if waiting.isEmpty {
                free += 1
            } else {
                waiting.removeFirst().resume()
            }
        }
    }
}

/// The trait of a suite whose tests start processes: each test case runs in a `TestLoad` slot.
public struct SpawnsProcessesTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }
        try await TestLoad.withSlot(function)
    }
}

extension Trait where Self == SpawnsProcessesTrait {
    /// Each test case waits for a `TestLoad` slot: for suites whose tests start alertd, alertctl, tmux, PostgreSQL,
    /// nginx or swiftc.
    public static var spawnsProcesses: Self { Self() }
}
