import CSQLite
import Dispatch
import Foundation
import Locking

/// Checkpoints the write-ahead log on a thread and a connection of its own, so that a commit does not wait for one.
///
/// The writer's connection has auto-checkpoint off; its WAL hook calls `walGrew(frames:)` after each commit. Each
/// time the WAL has grown by `passiveFrames` frames, the checkpointer runs a `PASSIVE` checkpoint beside the
/// commits (not after every commit: each checkpoint flushes the database file). SQLite
/// restarts the WAL from its start at the first commit after a checkpoint that copied every frame back; under a
/// load that never pauses the writer is always a few frames ahead, so once the WAL holds `catchUpFrames` the
/// checkpointer copies the last frames with commits held off (`gate`), which takes as long as those few frames.
/// After `idleSeconds` without a commit it runs `TRUNCATE`, which empties the WAL file, and syncs the data dir's
/// mark (which commits write without a sync of their own).
final class Checkpointer: Sendable {
    /// The WAL size, in frames, that starts a passive checkpoint (about 4 MB with 4 KB pages).
    static let passiveFrames: Int32 = 1000
    /// The WAL size, in frames, above which the last frames are copied with commits held off.
    static let catchUpFrames: Int32 = 4000
    /// How long without a commit before the WAL file is truncated.
    static let idleSeconds = 1.0

    private struct State {
        /// The WAL's frames after the last commit (0 after a truncation).
        var frames: Int32 = 0
        /// The WAL's frames when the last passive checkpoint ran (0 after the WAL started over).
        var checkpointed: Int32 = 0
        /// A passive checkpoint was asked for and has not run yet.
        var requested = false
        var stopping = false
        var checkpoints: UInt64 = 0
    }

    private let state = Lock(State())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    /// Held by the writer around each transaction, and here around checkpoints that must not overlap one.
    let gate = Lock(())

    /// Checkpoints run so far.
    var checkpoints: UInt64 { state.withLock { $0.checkpoints } }

    private let mark: JournalMark

    /// Starts the thread, which owns `connection`.
    init(connection: SQLiteConnection, mark: JournalMark) {
        self.mark = mark
        let owned = ConnectionBox(connection)
        let thread = Thread { [self] in
            run(owned.connection)
            owned.connection.close()
            finished.signal()
        }
        thread.name = "alertd-checkpoint"
        thread.start()
    }

    /// Told by the writer's WAL hook after a commit: the WAL now has `frames` frames.
    func walGrew(frames: Int32) {
        let signal = state.withLock { state -> Bool in
            state.frames = frames
            if frames < state.checkpointed { state.checkpointed = 0 }  // the WAL started over
            guard frames >= state.checkpointed + Self.passiveFrames, !state.requested else { return false }
            state.requested = true
            return true
        }
        if signal { wake.signal() }
    }

    /// Stops the thread and waits for it (its connection is then closed).
    func stop() {
        state.withLock { $0.stopping = true }
        wake.signal()
        finished.wait()
    }

    private func run(_ connection: SQLiteConnection) {
        while true {
            let signalled = wake.wait(timeout: .now() + Self.idleSeconds) == .success
            let (stopping, requested, frames) = state.withLock { ($0.stopping, $0.requested, $0.frames) }
            if stopping { return }
            if signalled, requested {
                let (log, _) = checkpoint(connection, SQLITE_CHECKPOINT_PASSIVE)
                state.withLock { $0.checkpointed = max($0.checkpointed, log) }
                // Commits went on meanwhile; past the catch-up size, copy their frames with commits held off.
                if state.withLock({ $0.frames }) >= Self.catchUpFrames {
                    gate.withLock { _ in _ = checkpoint(connection, SQLITE_CHECKPOINT_PASSIVE) }
                }
                state.withLock { $0.requested = false }
            } else if !signalled, frames > 0 {
                gate.withLock { _ in
                    let (log, copied) = checkpoint(connection, SQLITE_CHECKPOINT_TRUNCATE)
                    if log == 0, copied == 0 { state.withLock { $0.frames = 0 } }
                }
                mark.sync()
            }
        }
    }

    /// Runs one checkpoint; returns the frames in the WAL and those copied back (-1, -1 when it failed).
    private func checkpoint(_ connection: SQLiteConnection, _ mode: Int32) -> (log: Int32, copied: Int32) {
        var log: Int32 = -1
        var copied: Int32 = -1
        let code = sqlite3_wal_checkpoint_v2(connection.handle, nil, mode, &log, &copied)
        state.withLock { $0.checkpoints += 1 }
        return code == SQLITE_OK ? (log, copied) : (-1, -1)
    }
}

/// A connection handed to the thread that then owns it.
///
/// `@unchecked Sendable` invariant: after the hand-off only the receiving thread touches `connection` (a
/// `SQLITE_OPEN_NOMUTEX` connection is safe on one thread at a time).
final class ConnectionBox: @unchecked Sendable {
    let connection: SQLiteConnection

    init(_ connection: SQLiteConnection) {
        self.connection = connection
    }
}
