import Foundation

/// Every time bound of the tests, chosen to hold on a loaded two-core machine with every test target
/// running at once, yet still to catch the fault each test guards against.
///
/// Three kinds of bound:
/// - `bound(_:)`: an upper bound on how long something may take, stretched for slow builds. `make tsan` and
///   `make asan` run instrumented code, several times slower, and set `ALERTD_TEST_TIME_SCALE`
///   (scripts/sanitize.sh); a plain `swift test` leaves it unset, so the bounds stay as written.
/// - `sooner(than:)`: "at once", where the fault would take a known time (a long-poll's whole `wait`, an idle
///   timeout). It compares against that time instead of guessing how slow the machine is.
/// - `until(_:every:_:)`: waits for observable state (a waiter count, a line of output) with a deadline, instead
///   of sleeping to order events.
///
/// A lower bound ("waited at least 1 s") and the times a test asks of the server (a `wait`, an alert's
/// `timeout`) are not scaled.
public enum TestTime {
    /// `ALERTD_TEST_TIME_SCALE`, a number ≥ 1; 1 when unset or not such a number.
    public static let scale: Double = {
        let text = ProcessInfo.processInfo.environment["ALERTD_TEST_TIME_SCALE"] ?? ""
        return max(1, Double(text) ?? 1)
    }()

    /// `seconds`, stretched by `scale`.
    public static func bound(_ seconds: Double) -> Double {
        seconds * scale
    }

    /// `duration`, stretched by `scale`.
    public static func bound(_ duration: Duration) -> Duration {
        duration * scale
    }

    /// The upper bound for "at once" when the fault a test guards against would take `alternative` seconds: half of
    /// it. A loaded machine can delay an answer by seconds, but not by half a wait the test chose long (30 s or
    /// more); and a server that waited the whole `alternative` still fails. Not scaled: it is a comparison.
    public static func sooner(than alternative: Double) -> Double {
        alternative / 2
    }

    /// Checks `condition` every `interval` until it holds or `seconds` (stretched by `scale`) pass. The default is
    /// long: waiting costs only as long as the state takes to come, and the whole test process can stall for
    /// seconds when every test target starts at once on two cores.
    /// - Returns: whether it held (a last check is made at the deadline).
    public static func until(
        _ seconds: Double = 30, every interval: Duration = .milliseconds(5), _ condition: () async throws -> Bool
    ) async rethrows -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int64(bound(seconds) * 1000))
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: interval)
        }
        return try await condition()
    }

    /// Runs `attempt`, and again every 10 ms while it throws an error that `passing` says goes away by itself, until
    /// `seconds` (stretched by `scale`) pass.
    /// - Returns: what `attempt` returned; rethrows its last error.
    public static func retrying<T>(
        _ seconds: Double = 10, while passing: (any Error) -> Bool, _ attempt: () throws -> T
    ) async throws -> T {
        let deadline = ContinuousClock.now + .milliseconds(Int64(bound(seconds) * 1000))
        while true {
            do {
                return try attempt()
            } catch where passing(error) && ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
    }
}
