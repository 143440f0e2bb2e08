
/// The database that decides every change of a store shared by several instances: the store proposes changes, the
/// authority commits the ones that still hold (one answer of many, one expiry, one create per idempotency key), and
/// hands every committed change, its own and other instances', to `AlertStore.apply(_:)` in commit order.
public protocol StoreAuthority: AnyObject, Sendable {
    /// Commits `change`, or finds why it cannot be made, and calls `done` once the store has applied every change
    /// committed up to it (so a read after `done` shows it).
    ///
    /// - Parameters:
    ///   - change: What the store proposes.
    ///   - done: The change as committed; or `alreadyResolved` naming the winner, `keyReused`, `notFound`, or
    ///     `unavailable` when the database cannot be reached (nothing was committed, or it is not known whether).
    func commit(_ change: ProposedChange, done: @escaping @Sendable (Result<CommittedChange, AlertStoreError>) -> Void)

    /// Adds or removes a rule in the database (an add answers every pending alert the rule matches, in the same
    /// transaction), and calls `done` once the store has the new rules and those answers.
    ///
    /// - Parameter done: The rule and the alerts it answered; or `ruleExists`, `notFound`, `invalid` (too many
    ///   rules), `unavailable`.
    func commitRule(
        _ change: AlertStore.RuleChange, done: @escaping @Sendable (Result<AlertStore.RuleWritten, AlertStoreError>) -> Void)

    /// Calls `done` once the store has applied every change the authority had committed when this was called (at
    /// once when the database cannot be reached).
    func catchUp(done: @escaping @Sendable () -> Void)

    /// Why changes are refused right now (the database is unreachable), or `nil` when they are taken.
    var unavailableReason: String? { get }

    /// Records one delivery attempt of an alert's result to its callback (see `AlertStore.recordDelivery`): the
    /// delivery is done, failed for good, or stays claimed by this instance for another attempt.
    func recordDelivery(of id: AlertID, error: String?, final: Bool)
}

/// A change a store proposes to its authority.
public enum ProposedChange: Sendable {
    /// A new pending alert (its `sequence` is the authority's to give), with its idempotency key if any.
    case create(Alert, idempotency: IdempotencyRecord?)
    /// A pending alert resolved: `alert.result` is set. It commits only while the alert is pending; an expiry
    /// (`resolution == .expired`) only once its deadline has passed too.
    case resolve(Alert)
    /// A vote on a pending quorum alert: `alert.votes.last` is the new vote (and `alert.result`, when it resolved
    /// the alert in the store's view, holds the values). The authority casts it (`AlertStore.casting`) on the alert
    /// as the database holds it, so votes made on several instances at once all count, each responder's once.
    case vote(Alert)
    /// The escalation steps of a pending alert whose time came: the authority takes each (an `escalated` event) on
    /// the alert as the database holds it, once, whichever instance proposes first; a step already taken is no
    /// change.
    case escalate(AlertID)
}

/// A change as its authority committed it.
public enum CommittedChange: Sendable {
    /// The alert was created, or `replayed`: its idempotency key had created it before, from the same draft.
    case created(Alert, replayed: Bool)
    /// The alert resolved with `alert.result`.
    case resolved(Alert)
    /// The vote was cast: the alert with it, still pending or resolved by it.
    case voted(Alert)
    /// The alert after its escalation steps that were due (none when another instance took them first).
    case escalated(Alert)
}

/// An authority with a life: it holds what the database held when it connected, feeds the store it is started with
/// every committed change from then on, and stops with the app.
public protocol StoreAuthorityService: StoreAuthority {
    /// What the database held when this authority connected: the store starts from it.
    var image: StoreImage { get }
    /// Starts handing committed changes to `store` (made from `image` with this authority), and resolved alerts
    /// whose callback this instance claimed to `deliver` (each claimed by one instance at a time, for a lease; an
    /// instance that dies leaves its claims to expire and be taken by another).
    func start(feeding store: AlertStore, deliver: @escaping @Sendable (Alert) -> Void)
    /// Stops: closes the database connections; commits still queued fail as `unavailable`.
    func stop()
    /// Calls `observe` after each transaction that held changes, on the authority's writer thread; set before
    /// `start(feeding:deliver:)`.
    func observeCommits(_ observe: @escaping @Sendable (AuthorityCommit) -> Void)
    /// Its counts since it started, and whether the database is reachable now.
    var statistics: AuthorityStatistics { get }
}

/// One transaction a store's authority committed with changes in it, for `/metrics`.
public struct AuthorityCommit: Sendable {
    /// Seconds from the transaction's start until it is on the database's disk (the wait for other instances'
    /// commits and the flush included).
    public var seconds: Double
    /// The changes it held (creates and resolutions, committed or refused): the group commit's batch.
    public var changes: Int

    public init(seconds: Double, changes: Int) {
        self.seconds = seconds
        self.changes = changes
    }
}

/// What a store's authority (the cluster's database) has done since it started, for `/metrics`.
public struct AuthorityStatistics: Sendable, Equatable {
    /// Why changes are refused right now (the database is unreachable), or `nil`.
    public var unavailableReason: String?
    /// Connections to the database made again after one was lost or could not be made.
    public var reconnects: UInt64 = 0
    /// Events other instances committed that this one read after a notification.
    public var eventsByNotification: UInt64 = 0
    /// Events other instances committed that this one read by polling the head (once a second, and after a
    /// reconnect): their notification was lost or came late.
    public var eventsByPolling: UInt64 = 0
    /// Events other instances committed that this one's writer read, after its own commit or for a read that needed
    /// them (a catch-up), before their notification came.
    public var eventsByWriter: UInt64 = 0

    public init() {}
}
