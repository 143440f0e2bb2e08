import AlertCore
import Foundation

/// Several alertd instances on one PostgreSQL: the database decides every change (`CommitWriter`), every instance's
/// store is a cache of what it committed, fed in commit order by the writer after its own commits and by the
/// `EventFollower` after other instances' (`StoreFeed`).
public final class PostgresCluster: StoreAuthorityService {
    public let image: StoreImage
    /// What the server's settings take from the promise that a `2xx` survives a PostgreSQL crash or a power loss
    /// (`fsync` or `full_page_writes` off), one sentence each, for alertd to log at start; empty when nothing does.
    public let durabilityWarnings: [String]
    private let feed: StoreFeed
    private let writer: CommitWriter
    private let follower: EventFollower
    private let counters = ClusterCounters()
    /// The responder page's link key and used links, shared by every instance.
    public let links: ClusterLinks
    /// The outbox of push notifications, with `notifies`; nil without notify targets.
    public let notifications: ClusterNotifications?

    /// Connects, makes or migrates the schema, and reads what the database holds.
    ///
    /// - Parameters:
    ///   - url: The `postgresql://` URL.
    ///   - configuration: The store's retention and event history: how much of the database the image holds.
    ///   - webhookLease: How long a webhook delivery this instance claimed stays its own after each attempt; then
    ///     another instance may claim it (this one died, or stopped trying).
    ///   - notifies: Whether this instance pushes new alerts (`--notify`): it then keeps and claims the outbox.
    /// - Throws: `ClusterError` when the database cannot be reached, its schema is newer than this build's, or its
    ///   tables are damaged (`ClusterSchema.verify`).
    public init(
        url: String, configuration: AlertStore.Configuration, webhookLease: Duration = .seconds(60),
        notifies: Bool = false
    ) throws(ClusterError) {
        do {
            let connection = try PGConnection(url)
            try ClusterSchema.migrate(connection)
            try ClusterSchema.verify(connection)
            durabilityWarnings = try Self.durabilityWarnings(connection)
            links = try ClusterLinks(url: url, connection: connection, now: Int64(Date().timeIntervalSince1970))
            notifications = notifies ? try ClusterNotifications(url: url, connection: connection) : nil
            image = try ClusterEvents.image(connection, retention: configuration.retention,
                                            history: configuration.eventHistory)
            feed = StoreFeed(head: image.changeIndex, last: image.events.last)
            writer = CommitWriter(url: url, epoch: image.epoch, feed: feed, connection: connection,
                                  history: configuration.eventHistory, retention: configuration.retention,
                                  lease: webhookLease, counters: counters)
            follower = EventFollower(url: url, epoch: image.epoch, feed: feed, lease: webhookLease, counters: counters)
        } catch {
            throw ClusterError(description: "cannot use the PostgreSQL database \(Self.redacted(url)): \(error)")
        }
    }

    public func start(feeding store: AlertStore, deliver: @escaping @Sendable (Alert) -> Void) {
        feed.start(store)
        writer.start()
        follower.start(deliver: deliver)
    }

    public func recordDelivery(of id: AlertID, error: String?, final: Bool) {
        writer.submit(.delivery(id, error: error, final: final))
    }

    public func stop() {
        writer.stop()
        follower.stop()
        notifications?.stop()
    }

    public func commit(
        _ change: ProposedChange, done: @escaping @Sendable (Result<CommittedChange, AlertStoreError>) -> Void
    ) {
        writer.submit(.change(change, done: done))
    }

    public func commitRule(
        _ change: AlertStore.RuleChange, done: @escaping @Sendable (Result<AlertStore.RuleWritten, AlertStoreError>) -> Void
    ) {
        writer.submit(.rule(change, done: done))
    }

    public func catchUp(done: @escaping @Sendable () -> Void) {
        writer.submit(.catchUp(done: done))
    }

    public func observeCommits(_ observe: @escaping @Sendable (AuthorityCommit) -> Void) {
        counters.observeCommits(observe)
    }

    /// `observe` is called once, with the reason, when this instance finds that the database no longer holds what it
    /// showed (its head moved back after a crash or a restore, another epoch, another event at its last index): from
    /// then on it refuses writes and applies nothing more, until it is restarted.
    public func observeDivergence(_ observe: @escaping @Sendable (String) -> Void) {
        feed.observeDivergence(observe)
    }

    public var statistics: AuthorityStatistics {
        var statistics = counters.statistics
        statistics.unavailableReason = unavailableReason
        return statistics
    }

    /// Set while the writer or the follower cannot reach the database (the follower reads every second, so an idle
    /// instance notices too), and for good once the database no longer holds what this instance showed; each reason
    /// ends with what happens next (a divergence's says to restart, the others that the instance reconnects).
    public var unavailableReason: String? {
        feed.divergence ?? (writer.unavailableReason ?? follower.unavailableReason).map { $0 + "; reconnecting" }
    }

    /// What the server's settings take from the durability of acknowledged writes: alertd raises `synchronous_commit`
    /// for its own sessions, but cannot make a server flush that does not (`fsync` off) or make torn pages whole again
    /// (`full_page_writes` off).
    static func durabilityWarnings(_ connection: PGConnection) throws(PGError) -> [String] {
        let row = try connection.execute("SELECT current_setting('fsync'), current_setting('full_page_writes')")
            .first ?? [nil, nil]
        var warnings: [String] = []
        if row[0] == "off" {
            warnings.append("PostgreSQL runs with fsync off: a power loss or an operating system crash can take back "
                + "acknowledged creates and answers (a crash of PostgreSQL alone cannot)")
        }
        if row[1] == "off" {
            warnings.append("PostgreSQL runs with full_page_writes off: a power loss can leave torn pages it cannot "
                + "repair, and take back acknowledged creates and answers")
        }
        return warnings
    }

    /// The URL without its password, for messages.
    static func redacted(_ url: String) -> String {
        guard let scheme = url.range(of: "://"), let at = url[scheme.upperBound...].firstIndex(of: "@") else {
            return url
        }
        let credentials = url[scheme.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return url }
        return String(url[..<colon]) + ":***" + String(url[at...])
    }
}

/// The database could not be used at start.
public struct ClusterError: Error, Sendable, CustomStringConvertible {
    public let description: String
}
