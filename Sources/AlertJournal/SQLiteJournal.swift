import AlertCodec
import AlertCore
import CSQLite
import Dispatch
import Foundation
import Locking

/// The store's journal in SQLite (`DIR/alertd.sqlite3`, WAL mode, `synchronous=FULL`): group commit on one writer
/// thread, checkpoints on another, and the `StoreImage` a restart restores.
///
/// `append` only queues; the writer thread takes everything queued, commits it in one transaction, then calls
/// each `committed` in order. After a failed commit the journal takes no more writes: every queued and later
/// `append` gets the failure, and `failure` tells `/healthz`. Open one with `open(directory:eventHistory:)`, and
/// `close()` it: its threads hold it (and the data directory's lock) until then.
public final class SQLiteJournal: StoreJournal {
    private let directory: String
    private let queue = CommitQueue()
    private let checkpointer: Checkpointer
    private let writerFinished = DispatchSemaphore(value: 0)
    /// The writer, handed to the writer thread; `close()` takes it back once the thread has exited.
    private let writer: WriterBox
    private let lock: DataDirectoryLock
    /// The files the writer writes (nil when the journal opened unable to write).
    private let files: JournalFiles?
    private let counters = Lock(JournalStatistics())
    private let commitObserver = Lock<Callback<JournalCommit>?>(nil)
    private let failureObserver = Lock<Callback<JournalFailure>?>(nil)

    init(directory: String, writer: JournalWriter, checkpointer: Checkpointer, lock: DataDirectoryLock) {
        self.directory = directory
        files = writer.files
        self.writer = WriterBox(writer)
        self.checkpointer = checkpointer
        self.lock = lock
        let context = Unmanaged.passUnretained(checkpointer).toOpaque()
        sqlite3_wal_hook(writer.connection.handle, WALHook.callback, context)
        let thread = Thread { [self] in
            writeLoop()
            writerFinished.signal()
        }
        thread.name = "alertd-journal"
        thread.start()
    }

    /// Queues `records` for the next commit; `committed` is called on the writer thread once the transaction
    /// holding them committed (`nil`) or failed. After a failure it is called with the failure, writing nothing.
    public func append(_ records: [JournalRecord], committed: @escaping @Sendable (JournalFailure?) -> Void) {
        guard queue.append(.init(records: records, committed: committed)) else {
            DispatchQueue.global().async { committed(JournalFailure(reason: "the journal is closed")) }
            return
        }
    }

    /// The failure that stopped the journal, if one did (`/healthz` reports it: degraded, no more writes), or, before
    /// the next commit finds it, a database file or log another program renamed over or deleted.
    public var failure: JournalFailure? { queue.failure ?? files?.replaced }

    /// Counters since open, the WAL's current size and the failed state.
    public var statistics: JournalStatistics {
        var statistics = counters.withLock { $0 }
        statistics.failure = failure
        statistics.checkpoints = checkpointer.checkpoints
        var status = stat()
        statistics.walBytes = stat(DataDirectory.databasePath(directory) + "-wal", &status) == 0
            ? Int64(status.st_size) : 0
        return statistics
    }

    /// Calls `observer` on the writer thread after every committed transaction (for a latency and batch-size
    /// histogram); it must return quickly. A later call replaces the observer.
    public func observeCommits(_ observer: @escaping @Sendable (JournalCommit) -> Void) {
        commitObserver.withLock { $0 = Callback(observer) }
    }

    /// Calls `observer` once, on the writer thread, when a commit fails and the journal stops taking writes (for
    /// the log: the failed requests' `503`s and `/healthz` say so too); at once, on the caller's thread, when the
    /// journal failed already (opened where it cannot write). A later call replaces the observer.
    public func observeFailure(_ observer: @escaping @Sendable (JournalFailure) -> Void) {
        failureObserver.withLock { $0 = Callback(observer) }
        if let failure = queue.failure { observer(failure) }
    }

    /// Stops the journal taking writes, with `failure`, before any commit.
    func fail(_ failure: JournalFailure) {
        queue.fail(failure)
    }

    /// Commits what is queued, stops the threads, truncates the WAL, closes the file and releases the data
    /// directory's lock. Later `append`s fail with "the journal is closed". Safe to call more than once.
    public func close() {
        guard queue.close() else { return }
        writerFinished.wait()
        checkpointer.stop()
        writer.finish()
        lock.release()
    }

    /// The writer thread: takes batches until closed.
    private func writeLoop() {
        while let batch = queue.take() {
            if let failure = queue.failure {
                for entry in batch { entry.committed(failure) }
                continue
            }
            let start = ContinuousClock.now
            let result = checkpointer.gate.withLock { _ in
                Result { () throws(JournalFailure) in try writer.writer?.commit(batch.map(\.records)) }
            }
            switch result {
            case .success:
                record(batch, seconds: (ContinuousClock.now - start) / .seconds(1))
                // The batch's replies resume their connections together, once all are rendered (`HeldCalls`).
                HeldCalls.collecting { for entry in batch { entry.committed(nil) } }
            case .failure(let failure):
                queue.fail(failure)
                failureObserver.withLock { $0 }?.call(failure)
                for entry in batch { entry.committed(failure) }
            }
        }
    }

    private func record(_ batch: [CommitQueue.Entry], seconds: Double) {
        let commit = JournalCommit(seconds: seconds, appends: batch.count, records: batch.reduce(0) { $0 + $1.records.count })
        counters.withLock { counters in
            counters.commits += 1
            counters.appends += UInt64(commit.appends)
            counters.records += UInt64(commit.records)
            counters.commitSeconds += seconds
        }
        commitObserver.withLock { $0 }?.call(commit)
    }
}

/// The writer, owned by the writer thread while it runs.
///
/// `@unchecked Sendable` invariant: `writer` is used only by the writer thread, and by `finish()` after that thread
/// has exited (`SQLiteJournal.close()` waits for it first).
final class WriterBox: @unchecked Sendable {
    private(set) var writer: JournalWriter?

    init(_ writer: JournalWriter) {
        self.writer = writer
    }

    /// Empties the WAL into the database file, closes the connection and syncs and closes the mark.
    func finish() {
        try? writer?.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        writer?.mark.close()
        writer = nil
    }
}

/// The C callback SQLite calls after each commit on the writer's connection.
enum WALHook {
    static let callback: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<CChar>?, Int32)
        -> Int32 = { context, _, _, frames in
            guard let context else { return SQLITE_OK }
            Unmanaged<Checkpointer>.fromOpaque(context).takeUnretainedValue().walGrew(frames: frames)
            return SQLITE_OK
        }
}

/// What the journal has done since it opened, for metrics and `/healthz`.
public struct JournalStatistics: Sendable, Equatable {
    /// Transactions committed.
    public var commits: UInt64 = 0
    /// `append` calls (store turns) committed.
    public var appends: UInt64 = 0
    /// Records committed.
    public var records: UInt64 = 0
    /// Seconds spent in committed transactions, summed.
    public var commitSeconds: Double = 0
    /// The size of the write-ahead log file in bytes (0 when there is none).
    public var walBytes: Int64 = 0
    /// Checkpoints run (passive and truncating).
    public var checkpoints: UInt64 = 0
    /// The failure that stopped the journal, if one did; the journal then takes no more writes.
    public var failure: JournalFailure?

    public init() {}
}

/// Dates as the journal stores them: `StoredTime`'s whole milliseconds since 1970, the same as the cluster's tables.
typealias JournalTime = StoredTime

/// A row the journal cannot turn back into a value: the file was damaged or written by something else. The journal's
/// JSON columns are read by the codec the cluster shares (`AlertCodec`), so its errors are the codec's.
typealias JournalDecodingError = StoredValueError

extension SQLiteJournal {
    /// `date` as the journal keeps it: the nearest whole millisecond (the API's precision). A store that makes its
    /// dates with this restores alerts equal to the ones it served.
    public static func storedDate(_ date: Date) -> Date {
        JournalTime.date(JournalTime.milliseconds(date))
    }
}
