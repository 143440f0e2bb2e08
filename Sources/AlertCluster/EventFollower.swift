import AlertCore
import Foundation
import Locking

/// The instance's `LISTEN` connection: each batch's `NOTIFY` carries the new head, and the follower reads the events
/// up to it and feeds them to the store. Notifications are hints: it also reads the head once a second and right
/// after every reconnect (notifications sent while it was away are lost).
final class EventFollower: @unchecked Sendable {
    // @unchecked Sendable: `stopped` and `failure` are guarded by `lock`; `url`, `feed` and `deliver` (a Lock) are
    // immutable; the connection lives in `run()`, on the follower thread only.

    private let url: String
    private let feed: StoreFeed
    /// Where claimed deliveries go (the webhook sender), once started.
    private let deliver: Lock<(@Sendable (Alert) -> Void)?> = Lock(nil)
    private let lock = NSLock()
    private var stopped = false
    /// Why the last read failed, until the follower reconnects.
    private var failure: String?

    init(url: String, feed: StoreFeed) {
        self.url = url
        self.feed = feed
    }

    func start(deliver: @escaping @Sendable (Alert) -> Void) {
        self.deliver.withLock { $0 = deliver }
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
        while !isStopped {
            do {
                if connection == nil {
                    let made = try PGConnection(url)
                    try made.execute("LISTEN alertd_events")
                    connection = made
                    backoff = 0.05
                    try catchUp(made, to: nil)
                    lock.withLock { failure = nil }
                }
                guard let connection else { continue }
                let heads = try connection.notifications(waiting: 1000).compactMap { UInt64($0) }
                if let target = heads.max() {
                    if target > feed.queuedHead { try catchUp(connection, to: target) }
                } else {
                    try catchUp(connection, to: nil)
                }
                try claimDeliveries(connection)
            } catch {
                lock.withLock { failure = error.description }
                connection = nil
                Thread.sleep(forTimeInterval: backoff)
                backoff = min(backoff * 2, 2)
            }
        }
    }

    /// Claims pending deliveries whose lease passed (none claimed them, or their instance stopped renewing: it died)
    /// and hands them to the sender. Rows another instance is claiming at the same moment are skipped.
    private func claimDeliveries(_ connection: PGConnection) throws(PGError) {
        guard let deliver = deliver.withLock({ $0 }) else { return }
        let now = AlertCoding.milliseconds(.now)
        let rows = try connection.execute("""
            UPDATE alertd_deliveries d SET lease_until = $1
            FROM (SELECT alert_id FROM alertd_deliveries WHERE state = 'pending' AND lease_until < $2
                  ORDER BY lease_until LIMIT 32 FOR UPDATE SKIP LOCKED) claimed, alertd_alerts a
            WHERE d.alert_id = claimed.alert_id AND a.id = d.alert_id
            RETURNING a.alert
            """, [String(now + CommitWriter.lease.components.seconds * 1000), String(now)])
        for row in rows {
            guard let text = row[0] else { continue }
            deliver(try AlertCoding.decode(text))
        }
    }

    /// Reads the events after what the store has, up to `target` (the committed head when nil), and feeds them.
    private func catchUp(_ connection: PGConnection, to target: UInt64?) throws(PGError) {
        var head = target ?? 0
        if target == nil { head = try ClusterEvents.head(connection) }
        while feed.queuedHead < head {
            let page = try ClusterEvents.read(connection, after: feed.queuedHead, through: head)
            guard !page.isEmpty else { return }
            feed.deliver(page)
        }
    }
}
