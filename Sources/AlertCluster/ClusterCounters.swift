import AlertCore
import Locking

/// The counts the writer and the follower keep for `/metrics`, and the commit observer `/metrics` installs.
final class ClusterCounters: Sendable {
    private let counts = Lock(AuthorityStatistics())
    private let observer = Lock<Callback<AuthorityCommit>?>(nil)

    /// The counts so far (`unavailableReason` is the cluster's to fill in).
    var statistics: AuthorityStatistics { counts.withLock { $0 } }

    func observeCommits(_ observe: @escaping @Sendable (AuthorityCommit) -> Void) {
        observer.withLock { $0 = Callback(observe) }
    }

    /// A transaction with changes committed.
    func committed(seconds: Double, changes: Int) {
        observer.withLock { $0 }?.call(AuthorityCommit(seconds: seconds, changes: changes))
    }

    func reconnected() {
        counts.withLock { $0.reconnects += 1 }
    }

    /// Other instances' events read, by how they were learned of.
    func read(_ count: Int, by way: WritableKeyPath<AuthorityStatistics, UInt64>) {
        guard count > 0 else { return }
        counts.withLock { $0[keyPath: way] += UInt64(count) }
    }
}
