import AlertCodec
import AlertCore

/// A batch in three round trips (libpq's pipeline mode), since the head row is held from the first to the last and
/// every other instance's batch waits for it: round trips while it is held are what limits the cluster's commits.
///
/// 1. `BEGIN`, the head row `FOR UPDATE`. Once it holds the head row, the batch takes what was queued while it waited
///    for it: under load every instance waits for the others' commits, and its batch grows meanwhile.
/// 2. Every change, as if each holds: all creates in one `INSERT … ON CONFLICT DO NOTHING RETURNING`, each resolution
///    its conditional `UPDATE … RETURNING`; the events numbered from the head, the new head, the batch's `NOTIFY`.
/// 3. `COMMIT`, when every create was inserted and every resolution won; otherwise `ROLLBACK`, and the batch goes
///    `stepByStep`, which reads each outcome before the next change (a replayed key, a `409`).
///
/// The `COMMIT` returns once the batch is on disk (`PGConnection.synchronousCommit`): one flush per batch, however
/// many changes it holds, and the head row is held through it. PostgreSQL sends the notification only then.
extension CommitWriter {
    /// What a committed batch hands to the feed.
    struct Committed {
        /// The head the batch found: its events come after it (the ones up to it go to the store first).
        var before: UInt64
        /// The batch's own events.
        var made: [AlertEvent]
        /// Each command's completion, in batch order.
        var completions: [@Sendable () -> Void]
    }

    /// The batch committed in three round trips, or nil (rolled back, nothing committed) when a change did not hold
    /// as assumed. When `absorbing`, `batch` gains what was queued while it waited for the head row (also when it
    /// returns nil or throws: the caller goes on with all of it).
    func pipelined(
        _ batch: inout [Command], on connection: PGConnection, absorbing: Bool, deadline: ContinuousClock.Instant
    ) throws(PGError) -> Committed? {
        let known = feed.queuedHead
        let opened = try connection.pipeline([PGStatement("BEGIN"), Self.lockingHead])
        _ = try opened[0].get()
        guard let row = try opened[1].get().first, var head = row[0]?.uint64 else {
            throw feed.diverge("alertd_cluster is empty")
        }
        try feed.check(head: head, known: known)
        try refreshRules(version: row[1]?.int64 ?? 0, on: connection)
        let before = head
        if absorbing { batch += takeQueued(upTo: Self.batchLimit - batch.count) }
        let now = StoredTime.milliseconds(.now)
        var creates: [(alert: Alert, idempotency: IdempotencyRecord?, text: String)] = []
        var texts: [String] = []
        var statements: [PGStatement] = []
        /// The statements that must each return one row (a resolution that won).
        var resolutions: [Int] = []
        var made: [AlertEvent] = []
        var completions: [@Sendable () -> Void] = []
        for command in batch {
            if command.readsFirst {
                // A rule change, a vote, an escalation step, a quorum or escalating alert's resolution reads what the
                // database holds before it decides (an absorbed one too): the batch goes step by step.
                try connection.execute("ROLLBACK")
                return nil
            }
            switch command {
            case .catchUp(let done):
                completions.append(done)
            case .delivery(let id, let error, let final):
                statements.append(recording(id, error: error, final: final))
            case .change(.create(var alert, let idempotency), let done):
                head += 1
                alert.sequence = head
                let text = alert.storedText
                creates.append((alert, idempotency, text))
                made.append(AlertEvent(index: head, kind: .created, alert: alert))
                texts.append(text)
                if let answered = rules.isEmpty ? nil : AlertStore.answered(alert, byOldestOf: rules, at: .now) {
                    // A rule answers it in the same transaction: the resolution below its insert.
                    let answeredText = answered.alert.storedText
                    head += 1
                    made.append(AlertEvent(index: head, kind: .answered, alert: answered.alert))
                    texts.append(answeredText)
                    resolutions.append(statements.count)
                    statements.append(try Self.resolving(answered.alert, text: answeredText, now: now))
                    if answered.alert.delivery != nil { statements.append(Self.delivering(alert.id)) }
                    alert = answered.alert
                }
                completions.append { [alert] in done(.success(.created(alert, replayed: false))) }
            case .rule, .change(.vote, _), .change(.escalate, _):
                try connection.execute("ROLLBACK")
                return nil
            case .change(.resolve(let alert), let done):
                guard let resolution = alert.result?.resolution else { throw PGError("a resolution without a result") }
                head += 1
                let text = alert.storedText
                made.append(AlertEvent(index: head, kind: AlertEvent.Kind(resolution), alert: alert))
                texts.append(text)
                resolutions.append(statements.count)
                statements.append(try Self.resolving(alert, text: text, now: now))
                if alert.delivery != nil { statements.append(Self.delivering(alert.id)) }
                completions.append { done(.success(.resolved(alert))) }
            }
        }
        // The creates go first: a resolution in the same batch is never of an alert created in it (the store proposes
        // one only for an alert it shows, so after its create committed).
        if !creates.isEmpty { statements.insert(Self.inserting(creates), at: 0) }
        let shift = creates.isEmpty ? 0 : 1
        statements += Self.publishing(made, texts: texts)
        let results = try connection.pipeline(statements)
        try Self.check(deadline)
        var held = results.allSatisfy { if case .success = $0 { true } else { false } }
        if held, !creates.isEmpty, (try? results[0].get().count) != creates.count { held = false }
        if held, !resolutions.allSatisfy({ (try? results[$0 + shift].get().count) == 1 }) { held = false }
        guard held else {
            try connection.execute("ROLLBACK")
            return nil
        }
        try connection.execute("COMMIT")
        return Committed(before: before, made: made, completions: completions)
    }

    /// The head row, locked until the transaction ends: batches of all instances commit one after another.
    static let lockingHead = PGStatement("SELECT head, rules_version FROM alertd_cluster WHERE id = 1 FOR UPDATE",
                                         name: "alertd_head")

    /// Batches of up to this many creates or events have statements prepared by their size (larger ones are rare,
    /// and a statement per size up to `batchLimit` would hold too much on the server).
    static let preparedRows = 64

    /// `owner_key` of an alert: `-` for nobody, else `o:` and the owner (so an idempotency key is unique per owner).
    static func ownerKey(_ alert: Alert) -> String {
        alert.owner.map { "o:" + $0 } ?? "-"
    }

    /// Inserts new alerts (each with its `storedText`), except those whose idempotency key exists; returns a row for
    /// each alert inserted.
    static func inserting(_ creates: [(alert: Alert, idempotency: IdempotencyRecord?, text: String)]) -> PGStatement {
        var rows: [String] = []
        var parameters: [String?] = []
        rows.reserveCapacity(creates.count)
        parameters.reserveCapacity(creates.count * 7)
        for (alert, idempotency, text) in creates {
            let first = parameters.count
            rows.append("($\(first + 1), $\(first + 2), $\(first + 3), $\(first + 4), $\(first + 5), 'pending', "
                + "$\(first + 6), $\(first + 7))")
            parameters += [alert.id.rawValue, String(alert.sequence), ownerKey(alert), idempotency?.key,
                           idempotency?.draft.storedText, alert.expiresAt.map { String(StoredTime.milliseconds($0)) },
                           text]
        }
        return PGStatement("""
            INSERT INTO alertd_alerts (id, sequence, owner_key, idempotency_key, draft, state, expires_at, alert)
            VALUES \(rows.joined(separator: ", "))
            ON CONFLICT (owner_key, idempotency_key) DO NOTHING RETURNING sequence
            """, parameters, name: creates.count <= preparedRows ? "alertd_insert_alerts_\(creates.count)" : nil)
    }

    /// Resolves a pending alert (its `storedText` given), only while it is pending (an expiry only once due by `now`);
    /// a row when it did.
    static func resolving(_ alert: Alert, text: String, now: Int64) throws(PGError) -> PGStatement {
        guard let result = alert.result else { throw PGError("a resolution without a result") }
        var sql = """
            UPDATE alertd_alerts SET state = $2, resolved_at = $3, alert = $4
            WHERE id = $1 AND state = 'pending'
            """
        var parameters: [String?] = [alert.id.rawValue, result.resolution.rawValue,
                                     String(StoredTime.milliseconds(result.resolvedAt)), text]
        if result.resolution == .expired {
            sql += " AND expires_at <= $5"
            parameters.append(String(now))
        }
        return PGStatement(sql + " RETURNING sequence", parameters,
                           name: result.resolution == .expired ? "alertd_expire" : "alertd_resolve")
    }

    /// The delivery of a resolved alert's callback, claimable by any instance at once.
    static func delivering(_ id: AlertID) -> PGStatement {
        PGStatement("INSERT INTO alertd_deliveries (alert_id, state) VALUES ($1, 'pending')", [id.rawValue],
                    name: "alertd_delivery")
    }

    /// Records a delivery attempt; one to be tried again keeps its claim for another lease.
    func recording(_ id: AlertID, error: String?, final: Bool) -> PGStatement {
        let state = error == nil ? "delivered" : (final ? "failed" : "pending")
        let until = StoredTime.milliseconds(.now) + lease.milliseconds
        return PGStatement("""
            UPDATE alertd_deliveries SET attempts = attempts + 1, last_error = $2, state = $3, lease_until = $4
            WHERE alert_id = $1
            """, [id.rawValue, error, state, String(until)], name: "alertd_record_delivery")
    }

    /// The batch's events (`texts`: each one's alert as `storedText`; an event row holds it without its secure
    /// values, `Alert.withholdingSecureValues`), the new head (the last event's index) and the
    /// `NOTIFY alertd_events` that carries it (sent once the transaction committed, flush included).
    static func publishing(_ made: [AlertEvent], texts: [String]) -> [PGStatement] {
        guard let head = made.last?.index else { return [] }
        var parameters: [String?] = []
        var rows: [String] = []
        for (event, text) in zip(made, texts) {
            let first = parameters.count
            rows.append("($\(first + 1), $\(first + 2), $\(first + 3))")
            let row = event.alert.hasSecureValues ? event.alert.withholdingSecureValues.storedText : text
            parameters += [String(event.index), event.kind.rawValue, row]
        }
        return [
            PGStatement("INSERT INTO alertd_events (idx, kind, alert) VALUES " + rows.joined(separator: ", "),
                        parameters,
                        name: made.count <= preparedRows ? "alertd_insert_events_\(made.count)" : nil),
            PGStatement("UPDATE alertd_cluster SET head = $1 WHERE id = 1", [String(head)], name: "alertd_set_head"),
            PGStatement("SELECT pg_notify('alertd_events', $1)", [String(head)], name: "alertd_notify"),
        ]
    }
}
