import AlertCore
import AlertModel

/// Several alertd instances on one PostgreSQL: the database decides every change (`CommitWriter`), every instance's
/// store is a cache of what it committed, fed in commit order by the writer after its own commits and by the
/// `EventFollower` after other instances' (`StoreFeed`).
public final class PostgresCluster: StoreAuthorityService {
    public let image: StoreImage
    private let feed: StoreFeed
    private let writer: CommitWriter
    private let follower: EventFollower
    private let counters = ClusterCounters()

    /// Connects, makes or migrates the schema, and reads what the database holds.
    ///
    /// - Parameters:
    ///   - url: The `postgresql://` URL.
    ///   - configuration: The store's retention and event history: how much of the database the image holds.
    ///   - webhookLease: How long a webhook delivery this instance claimed stays its own after each attempt; then
    ///     another instance may claim it (this one died, or stopped trying).
    /// - Throws: `ClusterError` when the database cannot be reached, its schema is newer than this build's, or its
    ///   tables are damaged (`ClusterSchema.verify`).
    public init(
        url: String, configuration: AlertStore.Configuration, webhookLease: Duration = .seconds(60)
    ) throws(ClusterError) {
        do {
            let connection = try PGConnection(url)
            try ClusterSchema.migrate(connection)
            try ClusterSchema.verify(connection)
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
    }

    public func commit(
        _ change: ProposedChange, done: @escaping @Sendable (Result<CommittedChange, AlertStoreError>) -> Void
    ) {
        writer.submit(.change(change, done: done))
    }

    public func catchUp(done: @escaping @Sendable () -> Void) {
        writer.submit(.catchUp(done: done))
    }

    public func observeCommits(_ observe: @escaping @Sendable (AuthorityCommit) -> Void) {
        counters.observeCommits(observe)
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
