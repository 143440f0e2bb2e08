import AlertModel
import Foundation

/// Work run on a thread of its own while the caller does other work, and its result, taken once it is done: a restore
/// fills the table's dictionaries this way.
///
/// `@unchecked Sendable` invariant: `result` is written by the thread only, before it signals `done`; then read and
/// cleared by the one caller of `take()` only.
final class ThreadWork<Result>: @unchecked Sendable {
    private var result: Result?
    private let done = DispatchSemaphore(value: 0)

    /// Starts `work` on a new thread.
    init(_ work: @escaping @Sendable () -> Result) {
        let thread = Thread { [self] in
            result = work()
            done.signal()
        }
        thread.start()
    }

    /// The result, once the work is done, handed over: this object keeps no reference to it, so that a dictionary
    /// it returned changes afterwards without a copy. Call it once.
    func take() -> Result {
        done.wait()
        defer { result = nil }
        return result!
    }
}
