import AlertCodec
import AlertCore
import Foundation

/// The instance's one writer connection: takes everything queued, commits it in one transaction (group commit; no
/// timer window: a batch forms while the previous one commits), then hands the committed events to the feed and runs
/// each change's completion once the store applied them.
///
/// A batch takes the cluster's head row first (`FOR UPDATE`), so batches of all instances commit one after another
/// and number their events from the head they found: gap-free and in commit order. Each change is one conditional
/// statement: an `INSERT … ON CONFLICT` for a create, an `UPDATE … WHERE state = 'pending' … RETURNING` for a
/// resolution; a loser reads the winner in the same transaction. One `NOTIFY` per batch carries the new head.
final class CommitWriter: @unchecked Sendable {
    // @unchecked Sendable: `queue`, `unavailable` and `stopped` are read and written only while `condition` is
    // locked; `url`, `feed`, `lease` and `counters` are immutable; `connection` is used only by the writer thread
    // (`run()`) after `start()`.

    /// One queued request.
    enum Command {
        case change(ProposedChange, done: @Sendable (Result<CommittedChange, AlertStoreError>) -> Void)
        case catchUp(done: @Sendable () -> Void)
        /// One delivery attempt: done (`error` nil), failed for good (`final`), or to be tried again under a
        /// renewed lease.
        case delivery(AlertID, error: String?, final: Bool)
    }

    /// The most commands one transaction takes.
    static let batchLimit = 512

    private let url: String
    private let feed: StoreFeed
    /// How long a claimed delivery stays this instance's after its last attempt.
    private let lease: Duration
    private let counters: ClusterCounters
    private let condition = NSCondition()
    private var queue: [Command] = []
    private var unavailable: String?
    private var stopped = false
    private var connection: PGConnection?
    /// How many events and resolved alerts are kept in the tables (older ones are pruned now and then).
    private let history: Int
    private let retention: Duration

    init(
        url: String, feed: StoreFeed, connection: PGConnection, history: Int, retention: Duration, lease: Duration,
        counters: ClusterCounters
    ) {
        self.url = url
        self.feed = feed
        self.lease = lease
        self.counters = counters
        self.connection = connection
        self.history = history
        self.retention = retention
    }

    /// Why writes are refused now (the database is unreachable), or nil.
    var unavailableReason: String? {
        condition.lock()
        defer { condition.unlock() }
        return unavailable
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "alertd-pg-writer"
        thread.start()
    }

    func stop() {
        condition.lock()
        stopped = true
        let left = queue
        queue = []
        condition.broadcast()
        condition.unlock()
        fail(left, "alertd is shutting down")
    }

    /// Queues a command; fails it at once while the database is unreachable.
    func submit(_ command: Command) {
        condition.lock()
        if let reason = unavailable ?? (stopped ? "alertd is shutting down" : nil) {
            condition.unlock()
            fail([command], reason)
            return
        }
        queue.append(command)
        condition.signal()
        condition.unlock()
    }

    // MARK: The writer thread

    private func run() {
        var backoff = 0.05
        var lastPrune = Date()
        while true {
            if connection?.isOK != true {
                connection = nil
                do {
                    connection = try PGConnection(url)
                    counters.reconnected()
                    setUnavailable(nil)
                    backoff = 0.05
                } catch {
                    setUnavailable(error.description)
                    guard waitWhileDown(seconds: backoff) else { return }
                    backoff = min(backoff * 2, 2)
                    continue
                }
            }
            guard let batch = takeBatch() else { return }
            guard let connection else { continue }
            if batch.isEmpty {
                // An idle second: make sure the connection still works, so that a restart of the database is noticed
                // (and the connection made again) before the next write rather than by it.
                if (try? connection.execute("SELECT 1")) == nil { continue }
                if Date().timeIntervalSince(lastPrune) > 60 {
                    lastPrune = Date()
                    prune(connection)
                }
                continue
            }
            commit(batch, on: connection)
        }
    }

    /// Records whether the database is reachable; going down fails everything queued.
    private func setUnavailable(_ reason: String?) {
        condition.lock()
        unavailable = reason
        let left = reason == nil ? [] : queue
        if reason != nil { queue = [] }
        condition.unlock()
        fail(left, reason ?? "")
    }

    /// Sleeps while disconnected; false once stopped.
    private func waitWhileDown(seconds: Double) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if !stopped { _ = condition.wait(until: Date(timeIntervalSinceNow: seconds)) }
        return !stopped
    }

    /// Everything queued (at most `batchLimit`), waiting up to a second for something; empty after an idle second,
    /// nil once stopped.
    private func takeBatch() -> [Command]? {
        condition.lock()
        defer { condition.unlock() }
        if queue.isEmpty && !stopped { _ = condition.wait(until: Date(timeIntervalSinceNow: 1)) }
        if stopped { return nil }
        let taken = Array(queue.prefix(Self.batchLimit))
        queue.removeFirst(taken.count)
        return taken
    }

    /// Commits a batch; a batch that fails for a reason other than the connection is retried one command at a time,
    /// so that one bad change fails alone.
    private func commit(_ batch: [Command], on connection: PGConnection) {
        do {
            try transact(batch, on: connection)
        } catch {
            if connection.isOK { _ = try? connection.execute("ROLLBACK") }
            if connection.isOK && batch.count > 1 {
                for command in batch { commit([command], on: connection) }
                return
            }
            if !connection.isOK { setUnavailable(error.description) }
            fail(batch, error.description)
        }
    }

    private func transact(_ batch: [Command], on connection: PGConnection) throws(PGError) {
        let known = feed.queuedHead
        var completions: [@Sendable () -> Void] = []
        guard batch.contains(where: { if case .change = $0 { true } else { false } }) else {
            // No change of alerts: record deliveries, read what is committed, take no lock.
            for case .delivery(let id, let error, let final) in batch {
                try record(id, error: error, final: final, on: connection)
            }
            let head = try ClusterEvents.head(connection)
            let seen = try readEvents(connection, after: known, through: head)
            for case .catchUp(let done) in batch { completions.append(done) }
            counters.read(feed.deliver(seen, then: completions), by: \.eventsByWriter)
            return
        }
        let started = ContinuousClock.now
        try connection.execute("BEGIN")
        guard var head = try connection.execute("SELECT head FROM alertd_cluster WHERE id = 1 FOR UPDATE")
            .first?.first??.uint64 else { throw PGError("alertd_cluster is empty") }
        let seen = try readEvents(connection, after: known, through: head)
        var made: [AlertEvent] = []
        let now = StoredTime.milliseconds(.now)
        for command in batch {
            switch command {
            case .catchUp(let done):
                completions.append(done)
            case .delivery(let id, let error, let final):
                try record(id, error: error, final: final, on: connection)
            case .change(.create(var alert, let idempotency), let done):
                alert.sequence = head + 1
                let outcome = try create(alert, idempotency, on: connection)
                if case .success(let change) = outcome, !change.replayed {
                    head += 1
                    made.append(AlertEvent(index: head, kind: .created, alert: alert))
                }
                completions.append { done(outcome) }
            case .change(.resolve(let alert), let done):
                let outcome = try resolve(alert, now: now, on: connection)
                if case .success = outcome, let resolution = alert.result?.resolution {
                    head += 1
                    made.append(AlertEvent(index: head, kind: AlertEvent.Kind(resolution), alert: alert))
                }
                completions.append { done(outcome) }
            }
        }
        if !made.isEmpty {
            var parameters: [String?] = []
            var rows: [String] = []
            for event in made {
                let first = parameters.count
                rows.append("($\(first + 1), $\(first + 2), $\(first + 3))")
                parameters += [String(event.index), event.kind.rawValue, event.alert.storedText]
            }
            try connection.execute("INSERT INTO alertd_events (idx, kind, alert) VALUES " + rows.joined(separator: ", "),
                                   parameters)
            try connection.execute("UPDATE alertd_cluster SET head = $1 WHERE id = 1", [String(head)])
            try connection.execute("SELECT pg_notify('alertd_events', $1)", [String(head)])
        }
        try connection.execute("COMMIT")
        let elapsed = (ContinuousClock.now - started).components
        counters.committed(seconds: Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18,
                           changes: batch.count { if case .change = $0 { true } else { false } })
        let queued = feed.deliver(seen + made, then: completions)
        counters.read(max(0, queued - made.count), by: \.eventsByWriter)
    }

    /// Inserts a new alert, or finds the one its idempotency key created.
    private func create(
        _ alert: Alert, _ idempotency: IdempotencyRecord?, on connection: PGConnection
    ) throws(PGError) -> Result<CommittedChange, AlertStoreError> {
        let ownerKey = alert.owner.map { "o:" + $0 } ?? "-"
        let draft = idempotency.map { $0.draft.storedText }
        let inserted = try connection.execute("""
            INSERT INTO alertd_alerts (id, sequence, owner_key, idempotency_key, draft, state, expires_at, alert)
            VALUES ($1, $2, $3, $4, $5, 'pending', $6, $7)
            ON CONFLICT (owner_key, idempotency_key) DO NOTHING RETURNING sequence
            """, [alert.id.rawValue, String(alert.sequence), ownerKey, idempotency?.key, draft,
                  alert.expiresAt.map { String(StoredTime.milliseconds($0)) }, alert.storedText])
        guard inserted.isEmpty, let idempotency else { return .success(.created(alert, replayed: false)) }
        let rows = try connection.execute(
            "SELECT alert, draft FROM alertd_alerts WHERE owner_key = $1 AND idempotency_key = $2",
            [ownerKey, idempotency.key])
        guard let row = rows.first, let text = row[0] else { throw PGError("an idempotency key conflicted, then vanished") }
        guard row[1] == draft else { return .failure(.keyReused(idempotency.key)) }
        return .success(.created(try Alert.decoding(text), replayed: true))
    }

    /// Resolves a pending alert, only while it is pending (an expiry only once due); the loser reads the winner.
    private func resolve(
        _ alert: Alert, now: Int64, on connection: PGConnection
    ) throws(PGError) -> Result<CommittedChange, AlertStoreError> {
        guard let result = alert.result else { throw PGError("a resolution without a result") }
        var sql = """
            UPDATE alertd_alerts SET state = $2, resolved_at = $3, alert = $4
            WHERE id = $1 AND state = 'pending'
            """
        var parameters: [String?] = [alert.id.rawValue, result.resolution.rawValue,
                                     String(StoredTime.milliseconds(result.resolvedAt)), alert.storedText]
        if result.resolution == .expired {
            sql += " AND expires_at <= $5"
            parameters.append(String(now))
        }
        guard try connection.execute(sql + " RETURNING sequence", parameters).isEmpty else {
            if alert.delivery != nil {
                try connection.execute("INSERT INTO alertd_deliveries (alert_id, state) VALUES ($1, 'pending')",
                                       [alert.id.rawValue])
            }
            return .success(.resolved(alert))
        }
        let rows = try connection.execute("SELECT alert FROM alertd_alerts WHERE id = $1", [alert.id.rawValue])
        guard let text = rows.first?[0] else { return .failure(.notFound(alert.id)) }
        guard let winner = try Alert.decoding(text).result else {
            return .failure(AlertStoreError(kind: .invalid, message: "alert \(alert.id) is not due to expire yet"))
        }
        return .failure(.alreadyResolved(winner, id: alert.id))
    }

    /// Records a delivery attempt; one to be tried again keeps its claim for another lease.
    private func record(_ id: AlertID, error: String?, final: Bool, on connection: PGConnection) throws(PGError) {
        let state = error == nil ? "delivered" : (final ? "failed" : "pending")
        let lease = StoredTime.milliseconds(.now) + lease.milliseconds
        try connection.execute("""
            UPDATE alertd_deliveries SET attempts = attempts + 1, last_error = $2, state = $3, lease_until = $4
            WHERE alert_id = $1
            """, [id.rawValue, error, state, String(lease)])
    }

    private func readEvents(
        _ connection: PGConnection, after: UInt64, through: UInt64
    ) throws(PGError) -> [AlertEvent] {
        var events: [AlertEvent] = []
        var last = after
        while last < through {
            let page = try ClusterEvents.read(connection, after: last, through: through)
            guard let end = page.last else { break }
            events += page
            last = end.index
        }
        return events
    }

    /// Drops events beyond the kept history and resolved alerts past retention (any instance may; all do, now and
    /// then).
    private func prune(_ connection: PGConnection) {
        let keep = max(history, 10_000)
        let cutoff = StoredTime.milliseconds(.now) - retention.components.seconds * 1000
        _ = try? connection.execute(
            "DELETE FROM alertd_events WHERE idx <= (SELECT head FROM alertd_cluster WHERE id = 1) - $1", [String(keep)])
        _ = try? connection.execute(
            "DELETE FROM alertd_alerts WHERE state <> 'pending' AND resolved_at < $1", [String(cutoff)])
    }

    /// Fails commands: changes as `unavailable`, catch-ups run as they are.
    private func fail(_ commands: [Command], _ reason: String) {
        for command in commands {
            switch command {
            case .change(_, let done): done(.failure(.databaseUnavailable(reason)))
            case .catchUp(let done): done()
            case .delivery: break  // not recorded: the claim's lease passes, and another attempt is made
            }
        }
    }
}

extension AlertStoreError {
    /// The cluster's database could not be reached (or the commit's outcome is unknown): nothing is shown as done.
    static func databaseUnavailable(_ reason: String) -> AlertStoreError {
        AlertStoreError(kind: .unavailable, message: "alertd cannot reach its PostgreSQL database right now (\(reason)); "
            + "try again shortly (a create retried with the same Idempotency-Key is made once)")
    }
}
