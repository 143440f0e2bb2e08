import Foundation

/// Upper bounds on how long something may take in a test, stretched for slow builds.
///
/// `make tsan` and `make asan` run instrumented code, several times slower, and set
/// `ALERTD_TEST_TIME_SCALE` (scripts/sanitize.sh); a plain `swift test` leaves it unset, so the
/// bounds stay as written. Only upper bounds scale: a lower bound ("waited at least 1 s") and
/// the times a test asks of the server (a `wait`, an alert's `timeout`) do not.
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
}
