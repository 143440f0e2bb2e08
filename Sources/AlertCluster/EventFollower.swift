import AlertCodec
import AlertCore
import Foundation
import Locking

/// The instance's `LISTEN` connection: each batch's `NOTIFY` carries the new head, and the follower reads the events
/// up to it and feeds them to the store. Notifications are hints: it also reads the head once a second and right
/// after every reconnect (notifications sent while it was away are lost).
final class EventFollower: @unchecked Sendable {
    // @unchecked Sendable: `stopped` and `failure` are guarded by `lock`; `url`, `epoch`, `feed`, `lease`, `counters`
    // and `deliver` (a Lock) are immutable; the connection lives in `run()`, on the follower thread only.

    private let url: String
    /// The cluster's identity: each connection checks the database is still that one.
    private let epoch: String
    private let feed: StoreFeed
    /// How long a claimed delivery stays this instance's.
    private let lease: Duration
    private let counters: ClusterCounters
    /// Where claimed deliveries go (the webhook sender), once started.
    private let deliver: Lock<Callback<Alert>?> = Lock(nil)
    private let lock = NSLock()
    private var stopped = false
    /// Why the last read failed, until the follower reconnects.
    private var failure: String?

    init(url: String, epoch: String, feed: StoreFeed, lease: Duration, counters: ClusterCounters) {
        self.url = url
        self.epoch = epoch
        self.feed = feed
        self.lease = lease
        self.counters = counters
    }

    func start(deliver: @escaping @Sendable (Alert) -> Void) {
        self.deliver.withLock { $0 = Callback(deliver) }
        let thread = Thread { [self] in run() }
        thread.name = "alertd-pg-follower"
        thread.start()
    }

    func stop() {
        lock.withLock { stopped = true }
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    /// Why the follower cannot read from the database right now, or nil.
    var unavailableReason: String? { lock.withLock { failure } }

    private func run() {
        var connection: PGConnection?
        var backoff = 0.05
        /// Whether a connection was made before: the next one is a reconnect.
        var connectedBefore = false
        var lastClaim = ContinuousClock.now - Self.claimInterval
        /// When the follower last read events (or the head), so that it reads the head at least once a second.
        var lastRead = ContinuousClock.now
        while !isStopped {
            do {
                if connection == nil {
                    let made = try PGConnection(url)
                    try ClusterEvents.verify(made, feed: feed, epoch: epoch)
                    try made.execute("LISTEN alertd_events")
                    connection = made
                    if connectedBefore { counters.reconnected() }
                    connectedBefore = true
                    backoff = 0.05
                    try catchUp(made, to: nil, by: \.eventsByPolling)
                    lock.withLock { failure = nil }
                }
                guard let connection else { continue }
                // This instance's own commits are fed by its writer: reading them again here was a fifth of the
                // events read. A second without another instance's notification reads the head, as a second
                // without any did.
                let notifications = try connection.notifications(waiting: 1000)
                let own = feed.writerBackend
                let heads = notifications.filter { $0.sender != own }.compactMap { UInt64($0.payload) }
                if let target = heads.max() {
                    if target > feed.queuedHead { try catchUp(connection, to: target, by: \.eventsByNotification) }
                    lastRead = ContinuousClock.now
                } else if ContinuousClock.now - lastRead >= .seconds(1) {
                    try catchUp(connection, to: nil, by: \.eventsByPolling)
                    lastRead = ContinuousClock.now
                }
                if ContinuousClock.now - lastClaim >= Self.claimInterval {
                    try claimDeliveries(connection)
                    lastClaim = ContinuousClock.now
                }
            } catch {
                let reason = error.isTimeout ? CommitWriter.Refusal.stalled(error.description).reason
                    : CommitWriter.Refusal.unreachable(error.description).reason
                lock.withLock { failure = reason }
                connectedBefore = true
                connection = nil
                Thread.sleep(forTimeInterval: backoff)
                backoff = min(backoff * 2, 2)
            }
        }
    }

    /// How often deliveries are claimed at most: under load notifications come every few milliseconds, and a claim
    /// is a statement PostgreSQL runs whether or not there is anything to claim.
    static let claimInterval = Duration.milliseconds(100)

    /// Claims pending deliveries whose lease passed (none claimed them, or their instance stopped renewing: it died)
    /// and hands them to the sender. Rows another instance is claiming at the same moment are skipped.
    private func claimDeliveries(_ connection: PGConnection) throws(PGError) {
        guard let deliver = deliver.withLock({ $0 }) else { return }
        let now = StoredTime.milliseconds(.now)
        let rows = try connection.execute(PGStatement("""
            UPDATE alertd_deliveries d SET lease_until = $1
            FROM (SELECT alert_id FROM alertd_deliveries WHERE state = 'pending' AND lease_until < $2
                  ORDER BY lease_until LIMIT 32 FOR UPDATE SKIP LOCKED) claimed, alertd_alerts a
            WHERE d.alert_id = claimed.alert_id AND a.id = d.alert_id
            RETURNING a.alert
            """, [String(now + lease.milliseconds), String(now)], name: "alertd_claim"))
        for row in rows {
            guard let text = row[0] else { continue }
            deliver.call(try Alert.decoding(text))
        }
    }

    /// Reads the events after what the store has, up to `target` (the committed head when nil), feeds them, and
    /// counts the ones the store did not have yet under `way`.
    private func catchUp(
        _ connection: PGConnection, to target: UInt64?, by way: WritableKeyPath<AuthorityStatistics, UInt64>
    ) throws(PGError) {
        var head = target ?? 0
        if target == nil {
            let known = feed.queuedHead
            head = try ClusterEvents.head(connection)
            try feed.check(head: head, known: known)
        }
        // Every event read is on disk: instances commit synchronously, and PostgreSQL shows a synchronous commit only
        // once it is flushed (a notification comes after that too).
        while feed.divergence == nil, feed.queuedHead < head {
            let page = try ClusterEvents.read(connection, after: feed.queuedHead,
                                              through: feed.readLimit(towards: head))
            guard !page.isEmpty else { return }
            counters.read(feed.deliver(page), by: way)
        }
    }
}
