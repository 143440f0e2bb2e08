import Foundation
import HTTPTestSupport

/// Waits until `condition` holds, looking every 10 ms; throws, naming `what`, once `seconds` (stretched by
/// `TestTime`) pass first.
func eventually(_ what: String, within seconds: Double, _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + .milliseconds(Int(TestTime.bound(seconds) * 1000))
    while try await !condition() {
        guard ContinuousClock.now < deadline else {
            throw RawHTTPError(description: "waited \(TestTime.bound(seconds)) s for \(what)")
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}
