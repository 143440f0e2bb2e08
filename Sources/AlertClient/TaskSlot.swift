import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Locking

/// Hands a data task from the request to the cancellation handler, whichever runs first.
final class TaskSlot: Sendable {
    private enum State {
        case empty
        case running(URLSessionDataTask)
        case cancelled
    }

    // URLSessionDataTask is thread-safe to cancel; the lock only orders install against cancel.
    private struct Box: @unchecked Sendable {
        var state: State = .empty
    }

    private let box = Lock(Box())

    /// Stores `task`; `false` when the Task was already cancelled (then `task` must not be resumed).
    func install(_ task: URLSessionDataTask) -> Bool {
        let unchecked = UncheckedTask(task: task)
        return box.withLock { box in
            if case .cancelled = box.state { return false }
            box.state = .running(unchecked.task)
            return true
        }
    }

    /// Cancels the stored task, or marks the slot so no task starts.
    func cancel() {
        let task: UncheckedTask? = box.withLock { box in
            defer { box.state = .cancelled }
            if case .running(let task) = box.state { return UncheckedTask(task: task) }
            return nil
        }
        task?.task.cancel()
    }
}

/// A data task passed between threads; URLSessionTask's methods are thread-safe.
private struct UncheckedTask: @unchecked Sendable {
    let task: URLSessionDataTask
}
