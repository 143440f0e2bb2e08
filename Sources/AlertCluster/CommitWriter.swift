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
///
/// The rules that answer alerts live in `alertd_rules`; the writer keeps a copy, read again whenever the head row's
/// `rules_version` moved (the batch that locks it sees every rule committed before). A create that a rule matches is
/// answered in its own transaction (`created` then `answered`), and a rule added answers the pending alerts it
/// matches in the transaction that adds it, so an instance whose copy is stale cannot miss a rule.
final class CommitWriter: @unchecked Sendable {
    // @unchecked Sendable: `queue`, `unavailable` and `stopped` are read and written only while `condition` is
    // locked; `url`, `epoch`, `feed`, `lease` and `counters` are immutable; `connection`, `rules` and `rulesVersion`
    // are used only by the writer thread (`run()`) after `start()`.

    /// One queued request.
    enum Command {
        case change(ProposedChange, done: @Sendable (Result<CommittedChange, AlertStoreError>) -> Void)
        case catchUp(done: @Sendable () -> Void)
        /// A rule added or removed.
        case rule(AlertStore.RuleChange, done: @Sendable (Result<AlertStore.RuleWritten, AlertStoreError>) -> Void)
        /// One delivery attempt: done (`error` nil), failed for good (`final`), or to be tried again under a
        /// renewed lease.
        case delivery(AlertID, error: String?, final: Bool)
    }

    /// The most commands one transaction takes.
    static let batchLimit = 512

    /// How long a batch may take from its `BEGIN` to its `COMMIT`, however many round trips it makes (each is also
    /// bounded by `PGConnection.statementLimit`); past it the batch is rolled back and its writes get `503`.
    static let batchDeadline = Duration.seconds(5)

    /// Throws once `deadline` passed: the batch is given up (as PostgreSQL's own timeouts are, `57014`).
    static func check(_ deadline: ContinuousClock.Instant) throws(PGError) {
        guard ContinuousClock.now > deadline else { return }
        throw PGError("the batch took longer than \(batchDeadline.components.seconds) s", state: "57014")
    }

    private let url: String
    /// The cluster's identity, as the image read it: a reconnect checks the database is still that one.
    private let epoch: String
    let feed: StoreFeed
    /// How long a claimed delivery stays this instance's after its last attempt.
    let lease: Duration
    let counters: ClusterCounters
    private let condition = NSCondition()
    private var queue: [Command] = []
    private var unavailable: Refusal?
    private var stopped = false
    private var connection: PGConnection?
    /// The rules as of `rulesVersion` (the head row's count of rule changes; -1 before the first read), oldest first.
    var rules: [AnswerRule] = []
    var rulesVersion: Int64 = -1
    /// How many events and resolved alerts are kept in the tables (older ones are pruned now and then).
    private let history: Int
    private let retention: Duration

    init(
        url: String, epoch: String, feed: StoreFeed, connection: PGConnection, history: Int, retention: Duration,
        lease: Duration, counters: ClusterCounters
    ) {
        self.url = url
        self.epoch = epoch
        self.feed = feed
        self.lease = lease
        self.counters = counters
        self.connection = connection
        feed.writerBackend = connection.backendProcess
        self.history = history
        self.retention = retention
    }

    /// Why writes are refused now (the database is unreachable, or did not finish a write in time), or nil.
    var unavailableReason: String? {
        condition.lock()
        defer { condition.unlock() }
        return unavailable?.reason
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
        fail(left, .shuttingDown)
    }

    /// Queues a command; fails it at once while the database is unreachable or no longer matches the store, except a
    /// catch-up, which waits for the writer's next attempt to reach the database (see `setUnavailable`).
    func submit(_ command: Command) {
        condition.lock()
        if let refusal = stopped ? .shuttingDown : (command.isCatchUp ? nil : unavailable) {
            condition.unlock()
            fail([command], refusal)
            return
        }
        if feed.divergence != nil {
            condition.unlock()
            fail([command], .shuttingDown)  // fail() says the divergence
            return
        }
        queue.append(command)
        // A catch-up queued while the database is unreachable waits for the next reconnect of the back-off.
        if case .unreachable = unavailable, command.isCatchUp {} else { condition.signal() }
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
                    let made = try PGConnection(url)
                    try ClusterEvents.verify(made, feed: feed, epoch: epoch)
                    connection = made
                    feed.writerBackend = made.backendProcess
                    counters.reconnected()
                    setUnavailable(nil)
                    backoff = 0.05
                } catch {
                    setUnavailable(.unreachable(error.description))
                    failCatchUps()
                    guard waitWhileDown(seconds: backoff) else { return }
                    backoff = min(backoff * 2, 2)
                    continue
                }
            }
            guard let batch = takeBatch() else { return }
            guard let connection else { continue }
            if batch.isEmpty {
                if isStalled {
                    probe(connection)
                    continue
                }
                // An idle second: make sure the connection still works, so that a restart of the database is noticed
                // (and the connection made again) before the next write rather than by it; and take the rules
                // another instance changed, so that this one lists them.
                if (try? refreshRules(on: connection)) == nil { continue }
                if Date().timeIntervalSince(lastPrune) > 60 {
                    lastPrune = Date()
                    prune(connection)
                }
                continue
            }
            commit(batch, on: connection)
        }
    }

    /// Records why writes are refused (nil: they are taken again); a refusal fails everything queued but the
    /// catch-ups.
    ///
    /// A catch-up stays queued until the writer's next attempt to reach the database: it asks for what another
    /// instance committed (an alert created there a moment ago), and done without it, its request would answer from
    /// what this instance holds, without that alert, although PostgreSQL is back. A reconnect that fails completes it
    /// (`failCatchUps`); the request then answers from what this instance holds, as every read does meanwhile (an
    /// alert it does not hold is `503` then, not `404`: `APIHandler`).
    private func setUnavailable(_ refusal: Refusal?) {
        condition.lock()
        unavailable = refusal
        let left = refusal == nil ? [] : queue.filter { !$0.isCatchUp }
        if refusal != nil { queue.removeAll { !$0.isCatchUp } }
        condition.unlock()
        if let refusal { fail(left, refusal) }
    }

    /// Completes the queued catch-ups: the database cannot be reached to read anything more.
    private func failCatchUps() {
        condition.lock()
        let left = queue.filter(\.isCatchUp)
        queue.removeAll(where: \.isCatchUp)
        condition.unlock()
        fail(left, .unreachable("reconnecting"))
    }

    /// Puts catch-ups back at the front of the queue, for the writer's next connection.
    private func requeue(_ catchUps: [Command]) {
        guard !catchUps.isEmpty else { return }
        condition.lock()
        queue.insert(contentsOf: catchUps, at: 0)
        condition.unlock()
    }

    /// Whether writes are refused because the last one did not finish in time.
    private var isStalled: Bool {
        condition.lock()
        defer { condition.unlock() }
        if case .stalled = unavailable { return true }
        return false
    }

    /// While stalled, once a second: whether a batch would get through now (every table and the head row can be
    /// locked as a batch locks them, within `PGConnection.statementLimit`); then writes are taken again.
    private func probe(_ connection: PGConnection) {
        let locked = try? connection.pipeline([
            PGStatement("BEGIN"),
            PGStatement("LOCK TABLE alertd_cluster, alertd_alerts, alertd_events, alertd_deliveries "
                + "IN ROW EXCLUSIVE MODE"),
            Self.lockingHead,
        ])
        _ = try? connection.execute("ROLLBACK")
        guard let locked, locked.allSatisfy({ if case .success = $0 { true } else { false } }) else { return }
        setUnavailable(nil)
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

    /// What was queued since the batch was taken (at most `count`), without waiting: a batch that waited for the
    /// head row takes what came meanwhile.
    func takeQueued(upTo count: Int) -> [Command] {
        guard count > 0 else { return [] }
        condition.lock()
        defer { condition.unlock() }
        let taken = Array(queue.prefix(count))
        queue.removeFirst(taken.count)
        return taken
    }

    /// Commits a batch (and, when `absorbing`, what is queued once it holds the head row); a batch that fails for a
    /// reason other than the connection is retried one command at a time, so that one bad change fails alone.
    private func commit(_ batch: [Command], on connection: PGConnection, absorbing: Bool = true) {
        var batch = batch
        do {
            try transact(&batch, on: connection, absorbing: absorbing)
        } catch {
            if connection.isOK { _ = try? connection.execute("ROLLBACK") }
            if !connection.isOK {
                setUnavailable(.unreachable(error.description))
                requeue(batch.filter(\.isCatchUp))  // for the reconnect (`setUnavailable`)
                fail(batch.filter { !$0.isCatchUp }, .unreachable(error.description))
            } else if error.isTimeout {
                // Trying each change alone would hold every write for as long as the lock is: refuse them all until
                // a probe gets through.
                setUnavailable(.stalled(error.description))
                fail(batch, .stalled(error.description))
            } else if feed.divergence == nil && batch.count > 1 {
                for (number, command) in batch.enumerated() {
                    if let refusal = unavailableRefusal {
                        fail(Array(batch[number...]), refusal)
                        return
                    }
                    commit([command], on: connection, absorbing: false)
                }
            } else {
                fail(batch, .refused(error.description))
            }
        }
    }

    private func transact(_ batch: inout [Command], on connection: PGConnection, absorbing: Bool) throws(PGError) {
        let known = feed.queuedHead
        guard batch.contains(where: \.isChange) else {
            // No change of alerts: record deliveries, read what is committed (and so on disk), take no lock.
            var completions: [@Sendable () -> Void] = []
            for case .delivery(let id, let error, let final) in batch {
                try connection.execute(recording(id, error: error, final: final))
            }
            try refreshRules(on: connection)
            let head = try ClusterEvents.head(connection)
            try feed.check(head: head, known: known)
            let seen = try readEvents(connection, after: known, through: head)
            for case .catchUp(let done) in batch { completions.append(done) }
            counters.read(feed.deliver(seen, then: completions), by: \.eventsByWriter)
            return
        }
        let started = ContinuousClock.now
        let deadline = started + Self.batchDeadline
        let committed: Committed
        if !batch.contains(where: \.readsFirst),
           let pipelined = try pipelined(&batch, on: connection, absorbing: absorbing, deadline: deadline) {
            committed = pipelined
        } else {
            committed = try stepByStep(batch, on: connection, deadline: deadline)
        }
        let elapsed = (ContinuousClock.now - started).components
        counters.committed(seconds: Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18,
                           changes: batch.count(where: \.isChange))
        // The events before the batch's (other instances' commits, up to the head it found) go to the store first:
        // the follower reads them on their NOTIFY, and the feed holds this batch's events and completions until
        // then. Reading them here instead would hold the next batch back by a round trip.
        feed.deliver(committed.made, then: committed.completions)
    }

    /// The batch one statement at a time, each change's outcome read before the next: an idempotency key that
    /// exists (a replay, or `keyReused`), a resolution that lost (`409` naming the winner) or came too early.
    private func stepByStep(
        _ batch: [Command], on connection: PGConnection, deadline: ContinuousClock.Instant
    ) throws(PGError) -> Committed {
        var completions: [@Sendable () -> Void] = []
        let known = feed.queuedHead
        try connection.execute("BEGIN")
        guard let row = try connection.execute(Self.lockingHead).first, var head = row[0]?.uint64 else {
            throw feed.diverge("alertd_cluster is empty")
        }
        try feed.check(head: head, known: known)
        try refreshRules(version: row[1]?.int64 ?? 0, on: connection)
        let before = head
        var made: [AlertEvent] = []
        let now = StoredTime.milliseconds(.now)
        var rules = self.rules
        var rulesChanged = false
        for command in batch {
            try Self.check(deadline)
            switch command {
            case .catchUp(let done):
                completions.append(done)
            case .delivery(let id, let error, let final):
                try connection.execute(recording(id, error: error, final: final))
            case .change(.create(var alert, let idempotency), let done):
                alert.sequence = head + 1
                var outcome = try create(alert, idempotency, on: connection)
                if case .success(let change) = outcome, !change.replayed {
                    head += 1
                    made.append(AlertEvent(index: head, kind: .created, alert: alert))
                    if let answered = AlertStore.answered(alert, byOldestOf: rules, at: .now) {
                        guard case .success = try resolve(answered.alert, now: now, on: connection) else {
                            throw PGError("an alert inserted in this transaction did not take its rule's answer")
                        }
                        head += 1
                        made.append(AlertEvent(index: head, kind: .answered, alert: answered.alert))
                        outcome = .success(.created(answered.alert, replayed: false))
                    }
                }
                completions.append { [outcome] in done(outcome) }
            case .change(.vote(let proposed), let done):
                let outcome = try cast(proposed, now: now, head: &head, made: &made, on: connection)
                completions.append { done(outcome) }
            case .rule(let change, let done):
                let outcome = try commitRule(change, rules: &rules, head: &head, made: &made, now: now, on: connection)
                if case .success = outcome { rulesChanged = true }
                completions.append { done(outcome) }
            case .change(.escalate(let id), let done):
                let outcome = try escalate(id, head: &head, made: &made, on: connection)
                completions.append { done(outcome) }
            case .change(.resolve(var alert), let done):
                if alert.policy.quorum > 1 || !alert.escalation.isEmpty,
                   var stored = try storedAlert(alert.id, on: connection), stored.result == nil {
                    // The result goes onto the alert as the database holds it: with the votes so far (a dismissal
                    // or expiry keeps them) and the escalation steps taken, some of them made on other instances
                    // that this one's view may not show yet. An expiry takes the steps still due first, as one
                    // store does (every step comes before the timeout).
                    if alert.result?.resolution == .expired {
                        stored = try takeSteps(of: stored, head: &head, made: &made, on: connection)
                    }
                    let result = alert.result
                    alert = stored
                    alert.result = result
                    alert.result?.votes = stored.votes
                }
                let outcome = try resolve(alert, now: now, on: connection)
                if case .success = outcome, let resolution = alert.result?.resolution {
                    head += 1
                    made.append(AlertEvent(index: head, kind: AlertEvent.Kind(resolution), alert: alert))
                }
                completions.append { done(outcome) }
            }
        }
        for statement in Self.publishing(made, texts: made.map(\.alert.storedText)) {
            try connection.execute(statement)
        }
        var version: Int64?
        if rulesChanged {
            version = try connection.execute(
                "UPDATE alertd_cluster SET rules_version = rules_version + 1 WHERE id = 1 RETURNING rules_version"
            ).first?.first??.int64
        }
        try Self.check(deadline)
        try connection.execute("COMMIT")
        if let version {
            self.rules = rules
            rulesVersion = version
            feed.deliver(rules: rules)
        }
        return Committed(before: before, made: made, completions: completions)
    }

    /// The alert as the database holds it, or nil when it has no row.
    private func storedAlert(_ id: AlertID, on connection: PGConnection) throws(PGError) -> Alert? {
        guard let text = try connection.execute("SELECT alert FROM alertd_alerts WHERE id = $1", [id.rawValue])
            .first?[0] else { return nil }
        return try Alert.decoding(text)
    }

    /// Casts the vote a store proposed (`proposed.votes.last`) on the alert as the database holds it: stored with one
    /// more vote (a `voted` event), or resolved by it; `alreadyResolved` naming the winner, or `alreadyVoted`.
    private func cast(
        _ proposed: Alert, now: Int64, head: inout UInt64, made: inout [AlertEvent], on connection: PGConnection
    ) throws(PGError) -> Result<CommittedChange, AlertStoreError> {
        guard let vote = proposed.votes.last else { throw PGError("a vote without a vote") }
        guard let stored = try storedAlert(proposed.id, on: connection) else { return .failure(.notFound(proposed.id)) }
        if let winner = stored.result { return .failure(.alreadyResolved(winner, id: stored.id)) }
        let alert: Alert
        do {
            alert = try AlertStore.casting(vote, values: proposed.result?.values ?? stored.fields.map(\.text), on: stored)
        } catch {
            return .failure(error)
        }
        let alertText = alert.storedText
        if let resolution = alert.result?.resolution {
            guard try !connection.execute(Self.resolving(alert, text: alertText, now: now)).isEmpty else {
                throw PGError("a pending alert locked by the head row did not resolve")
            }
            if alert.delivery != nil { try connection.execute(Self.delivering(alert.id)) }
            head += 1
            made.append(AlertEvent(index: head, kind: AlertEvent.Kind(resolution), alert: alert))
        } else {
            try update(pending: alert, text: alertText, taking: "its vote", on: connection)
            head += 1
            made.append(AlertEvent(index: head, kind: .voted, alert: alert))
        }
        return .success(.voted(alert))
    }

    /// Takes the escalation steps of a pending alert that are due (`ProposedChange.escalate`) on the alert as the
    /// database holds it; none when another instance took them first.
    private func escalate(
        _ id: AlertID, head: inout UInt64, made: inout [AlertEvent], on connection: PGConnection
    ) throws(PGError) -> Result<CommittedChange, AlertStoreError> {
        guard let stored = try storedAlert(id, on: connection) else { return .failure(.notFound(id)) }
        if let winner = stored.result { return .failure(.alreadyResolved(winner, id: stored.id)) }
        return .success(.escalated(try takeSteps(of: stored, head: &head, made: &made, on: connection)))
    }

    /// Takes each escalation step of `stored` (pending) whose time came, an `escalated` event each, and stores the
    /// alert after them.
    private func takeSteps(
        of stored: Alert, head: inout UInt64, made: inout [AlertEvent], on connection: PGConnection
    ) throws(PGError) -> Alert {
        var alert = stored
        let now = Date()
        while let due = alert.nextEscalationAt, due <= now, let moved = alert.escalated(at: now, event: head + 1) {
            head += 1
            made.append(AlertEvent(index: head, kind: .escalated, alert: moved))
            alert = moved
        }
        guard alert.escalated.count > stored.escalated.count else { return stored }
        try update(pending: alert, text: alert.storedText, taking: "its escalation", on: connection)
        return alert
    }

    /// Stores a pending alert's new text (a vote, an escalation step), under the head row that holds it pending.
    private func update(pending alert: Alert, text: String, taking change: String, on connection: PGConnection)
        throws(PGError) {
        guard try !connection.execute(
            "UPDATE alertd_alerts SET alert = $2 WHERE id = $1 AND state = 'pending' RETURNING sequence",
            [alert.id.rawValue, text]).isEmpty else {
            throw PGError("a pending alert locked by the head row did not take \(change)")
        }
    }

    /// Adds or removes a rule in the open transaction (`rules` follows); an add answers every pending alert it
    /// matches, oldest first, each an `answered` event after `head`.
    private func commitRule(
        _ change: AlertStore.RuleChange, rules: inout [AnswerRule], head: inout UInt64, made: inout [AlertEvent],
        now: Int64, on connection: PGConnection
    ) throws(PGError) -> Result<AlertStore.RuleWritten, AlertStoreError> {
        switch change {
        case .remove(let name):
            guard let text = try connection.execute("DELETE FROM alertd_rules WHERE name = $1 RETURNING rule", [name])
                .first?[0] else { return .failure(.ruleNotFound(name)) }
            rules.removeAll { $0.name == name }
            return .success((try AnswerRule.decoding(text), []))
        case .add(let rule):
            let count = try connection.execute("SELECT count(*) FROM alertd_rules").first?.first??.int ?? 0
            guard count < AnswerRule.maximumRules else {
                return .failure(.invalid([FieldIssue(pointer: "/name", detail: "\(count) rules are kept, the most "
                    + "allowed; remove some first")]))
            }
            guard try !connection.execute(
                "INSERT INTO alertd_rules (name, rule) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING name",
                [rule.name, rule.storedText]).isEmpty else { return .failure(.ruleExists(rule.name)) }
            rules.append(rule)
            rules.sort { ($0.createdAt, $0.name) < ($1.createdAt, $1.name) }  // as `AnswerRule.reading` orders them
            var answered: [AlertID] = []
            let date = Date()
            for row in try connection.execute(
                "SELECT alert FROM alertd_alerts WHERE state = 'pending' ORDER BY sequence") {
                guard let text = row[0] else { continue }
                let alert = try Alert.decoding(text)
                guard alert.result == nil, let buttonIndex = rule.answer(for: alert, at: date),
                      alert.policy.isDefault else { continue }
                let resolved = AlertStore.resolved(alert, buttonIndex: buttonIndex, by: rule)
                guard try !connection.execute(Self.resolving(resolved, text: resolved.storedText, now: now)).isEmpty
                else { continue }
                if resolved.delivery != nil { try connection.execute(Self.delivering(resolved.id)) }
                head += 1
                made.append(AlertEvent(index: head, kind: .answered, alert: resolved))
                answered.append(resolved.id)
            }
            return .success((rule, answered))
        }
    }

    /// Reads the rules again when the head row's `rules_version` (`version`, read now when nil) is not the one this
    /// writer has, and hands them to the store.
    func refreshRules(version known: Int64? = nil, on connection: PGConnection) throws(PGError) {
        var version = known ?? 0
        if known == nil {
            version = try connection.execute("SELECT rules_version FROM alertd_cluster WHERE id = 1").first?.first??
                .int64 ?? 0
        }
        guard version != rulesVersion else { return }
        rules = try AnswerRule.reading(connection)
        rulesVersion = version
        feed.deliver(rules: rules)
    }

    /// Inserts a new alert, or finds the one its idempotency key created.
    private func create(
        _ alert: Alert, _ idempotency: IdempotencyRecord?, on connection: PGConnection
    ) throws(PGError) -> Result<CommittedChange, AlertStoreError> {
        let inserted = try connection.execute(Self.inserting([(alert, idempotency, alert.storedText)]))
        guard inserted.isEmpty, let idempotency else { return .success(.created(alert, replayed: false)) }
        let rows = try connection.execute(
            "SELECT alert, draft FROM alertd_alerts WHERE owner_key = $1 AND idempotency_key = $2",
            [Self.ownerKey(alert), idempotency.key])
        guard let row = rows.first, let text = row[0] else { throw PGError("an idempotency key conflicted, then vanished") }
        guard row[1] == idempotency.draft.storedText else { return .failure(.keyReused(idempotency.key)) }
        return .success(.created(try Alert.decoding(text), replayed: true))
    }

    /// Resolves a pending alert, only while it is pending (an expiry only once due); the loser reads the winner.
    private func resolve(
        _ alert: Alert, now: Int64, on connection: PGConnection
    ) throws(PGError) -> Result<CommittedChange, AlertStoreError> {
        guard try connection.execute(Self.resolving(alert, text: alert.storedText, now: now)).isEmpty else {
            if alert.delivery != nil { try connection.execute(Self.delivering(alert.id)) }
            return .success(.resolved(alert))
        }
        guard let stored = try storedAlert(alert.id, on: connection) else { return .failure(.notFound(alert.id)) }
        guard let winner = stored.result else {
            return .failure(AlertStoreError(kind: .invalid, message: "alert \(alert.id) is not due to expire yet"))
        }
        return .failure(.alreadyResolved(winner, id: alert.id))
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
        guard (try? connection.execute("BEGIN")) != nil else { return }
        defer { _ = try? connection.execute("COMMIT") }  // a ROLLBACK when a statement failed
        _ = try? connection.execute("SET LOCAL statement_timeout = '30s'")  // a backlog takes its time (locks do not)
        _ = try? connection.execute(
            "DELETE FROM alertd_events WHERE idx <= (SELECT head FROM alertd_cluster WHERE id = 1) - $1", [String(keep)])
        // A row whose alert's kept events withhold secure values stays until those events go: an instance that reads
        // them late (it lagged, or catches up) restores the values from it, and never hands a waiter anything else.
        // The id is read from the text (a stored alert starts with it): PostgreSQL's json refuses a `\u0000` as text.
        _ = try? connection.execute("""
            DELETE FROM alertd_alerts WHERE state <> 'pending' AND resolved_at < $1 AND id NOT IN (
                SELECT substring(alert from '^\\{"id":"([^"]*)"') FROM alertd_events
                WHERE strpos(alert, '\\u0000') > 0 AND substring(alert from '^\\{"id":"([^"]*)"') IS NOT NULL)
            """, [String(cutoff)])
    }

    private var unavailableRefusal: Refusal? {
        condition.lock()
        defer { condition.unlock() }
        return unavailable
    }

    /// Fails commands: changes as `unavailable`, saying why (the database's divergence when it diverged), catch-ups
    /// run as they are.
    private func fail(_ commands: [Command], _ refusal: Refusal) {
        let error = feed.divergence.map { AlertStoreError(kind: .unavailable, message: "alertd refuses writes: \($0)") }
            ?? refusal.error
        for command in commands {
            switch command {
            case .change(_, let done): done(.failure(error))
            case .rule(_, let done): done(.failure(error))
            case .catchUp(let done): done()
            case .delivery: break  // not recorded: the claim's lease passes, and another attempt is made
            }
        }
    }
}

extension CommitWriter.Command {
    /// Whether the command changes what the database holds under the head row (a change of alerts or rules).
    var isChange: Bool {
        switch self {
        case .change, .rule: true
        case .catchUp, .delivery: false
        }
    }

    /// Whether the command is a catch-up: it waits for a reconnect rather than fail (`setUnavailable`).
    var isCatchUp: Bool {
        if case .catchUp = self { true } else { false }
    }

    /// Whether the command reads what the database holds before it decides (a rule change, a vote, an escalation
    /// step, the resolution of a quorum or escalating alert): its batch goes `stepByStep`.
    var readsFirst: Bool {
        switch self {
        case .rule, .change(.vote, _), .change(.escalate, _): true
        case .change(.resolve(let alert), _): alert.policy.quorum > 1 || !alert.escalation.isEmpty
        default: false
        }
    }
}

extension CommitWriter {
    /// Why a write was refused.
    enum Refusal {
        /// The connection is lost, or cannot be made.
        case unreachable(String)
        /// PostgreSQL did not finish a batch within `PGConnection.statementLimit` or `batchDeadline` (a lock held by
        /// another session, an overloaded server): writes are refused until a probe gets through.
        case stalled(String)
        /// PostgreSQL refused the batch itself (a damaged schema, say): this change fails, later ones are tried.
        case refused(String)
        case shuttingDown

        /// What `/healthz` says while writes are refused.
        var reason: String {
            switch self {
            case .unreachable(let error): "PostgreSQL unreachable: \(error)"
            case .stalled(let error): "PostgreSQL did not finish a write in time: \(error)"
            case .refused(let error): "PostgreSQL refused a write: \(error)"
            case .shuttingDown: "alertd is shutting down"
            }
        }

        /// What a refused change gets (a `503`).
        var error: AlertStoreError {
            switch self {
            case .unreachable(let error): .databaseUnavailable(error)
            case .stalled(let error):
                AlertStoreError(kind: .unavailable, message: "alertd's PostgreSQL database did not finish the write "
                    + "within \(CommitWriter.batchDeadline.components.seconds) s (\(error): a lock held by another "
                    + "session, or a server overloaded); try again shortly (a create retried with the same "
                    + "Idempotency-Key is made once)")
            case .refused(let error):
                AlertStoreError(kind: .unavailable,
                                message: "alertd's PostgreSQL database refused the write (\(error))")
            case .shuttingDown: .databaseUnavailable("alertd is shutting down")
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
