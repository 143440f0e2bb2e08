import Foundation

/// A task executor with a thread of its own. A task that prefers it runs there; so does a job it starts on an idle
/// `AlertStore`, whose executor runs a job on the thread that enqueues it. A test can then hold the store with a
/// blocking job without blocking one of Swift's cooperative threads, which every test in the process shares.
///
/// `@unchecked Sendable` invariant: `jobs` and `stopped` are only touched with `condition` locked.
final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopped = false

    init() {
        let thread = Thread { [self] in runJobs() }
        thread.name = "test-executor"
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.withLock {
            jobs.append(job)
            condition.signal()
        }
    }

    /// Ends the thread once the jobs enqueued so far have run.
    func stop() {
        condition.withLock {
            stopped = true
            condition.signal()
        }
    }

    private func runJobs() {
        while true {
            condition.lock()
            while jobs.isEmpty, !stopped { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
