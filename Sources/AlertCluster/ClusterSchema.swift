/// The cluster's tables in PostgreSQL, made and migrated by alertd itself: `alertd_schema` holds the version.
///
/// - `alertd_cluster`: one row; `head` is the index of the last event committed (the counter every batch takes
///   once, so event indexes are gap-free and in commit order), `epoch` the cluster's identity, `rules_version` a
///   count of rule changes (a writer that finds it moved reads the rules again).
/// - `alertd_alerts`: every kept alert, its JSON in `alert`; `state` is `pending` or how it resolved. An
///   idempotency key is unique per owner (`owner_key` is `-` for nobody, else `o:` and the owner).
/// - `alertd_events`: every kept event by index, with the alert as it was just after the change.
/// - `alertd_deliveries`: the callback of each resolved alert that has one; an instance claims a pending one by
///   setting `lease_until` (`FOR UPDATE SKIP LOCKED`), and it is claimable again once the lease passes.
/// - `alertd_rules` (version 2): every rule that answers alerts, its JSON in `rule`.
/// - `alertd_page_key` (version 3): one row, the key that signs the responder page's links (hex), made by the first
///   instance to start (`ClusterLinks`).
/// - `alertd_used_links` (version 3): the nonce of every single-alert link used, until it expires (Unix seconds).
/// - `alertd_notify_outbox` (version 3): the pending alerts whose push notifications are not done, each leased to
///   the instance sending them; the function `alertd_notify_enqueue` adds one as its alert is inserted, once an
///   instance with notify targets has made the trigger (`ClusterNotifications`).
enum ClusterSchema {
    /// The version this build writes.
    static let version = 3

    /// The statements that bring an empty database to version 1.
    private static let version1 = [
        """
        CREATE TABLE alertd_cluster (
            id integer PRIMARY KEY CHECK (id = 1),
            head bigint NOT NULL,
            epoch text NOT NULL
        )
        """,
        "INSERT INTO alertd_cluster (id, head, epoch) VALUES (1, 0, md5(random()::text || clock_timestamp()::text))",
        """
        CREATE TABLE alertd_alerts (
            id text PRIMARY KEY,
            sequence bigint NOT NULL UNIQUE,
            owner_key text NOT NULL,
            idempotency_key text,
            draft text,
            state text NOT NULL,
            expires_at bigint,
            resolved_at bigint,
            alert text NOT NULL,
            UNIQUE (owner_key, idempotency_key)
        )
        """,
        "CREATE INDEX alertd_alerts_resolved ON alertd_alerts (resolved_at) WHERE state <> 'pending'",
        "CREATE TABLE alertd_events (idx bigint PRIMARY KEY, kind text NOT NULL, alert text NOT NULL)",
        """
        CREATE TABLE alertd_deliveries (
            alert_id text PRIMARY KEY REFERENCES alertd_alerts (id) ON DELETE CASCADE,
            state text NOT NULL,
            attempts integer NOT NULL DEFAULT 0,
            last_error text,
            lease_until bigint NOT NULL DEFAULT 0
        )
        """,
        "CREATE INDEX alertd_deliveries_due ON alertd_deliveries (lease_until) WHERE state = 'pending'",
    ]

    /// The statements that bring version 1 to version 2: the rules.
    private static let version2 = [
        "ALTER TABLE alertd_cluster ADD COLUMN rules_version bigint NOT NULL DEFAULT 0",
        "CREATE TABLE alertd_rules (name text PRIMARY KEY, rule text NOT NULL)",
    ]

    /// The statements that bring version 2 to version 3: the links' key, the record of used links, and the outbox of
    /// notifications.
    private static let version3 = [
        "CREATE TABLE alertd_page_key (id integer PRIMARY KEY CHECK (id = 1), key text NOT NULL)",
        "CREATE TABLE alertd_used_links (nonce text PRIMARY KEY, expires_at bigint NOT NULL)",
        "CREATE INDEX alertd_used_links_expiry ON alertd_used_links (expires_at)",
        """
        CREATE TABLE alertd_notify_outbox (
            alert_id text PRIMARY KEY REFERENCES alertd_alerts (id) ON DELETE CASCADE,
            lease_until bigint NOT NULL
        )
        """,
        "CREATE INDEX alertd_notify_outbox_due ON alertd_notify_outbox (lease_until)",
        """
        CREATE FUNCTION alertd_notify_enqueue() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO alertd_notify_outbox (alert_id, lease_until)
            VALUES (NEW.id, extract(epoch FROM clock_timestamp())::bigint + \(ClusterNotifications.lease));
            RETURN NULL;
        END $$
        """,
    ]

    /// Makes or migrates the schema, once even when several instances start together (under an advisory lock).
    ///
    /// - Throws: `PGError` when the database is unreachable, refuses, or has a newer schema than this build knows.
    static func migrate(_ connection: PGConnection) throws(PGError) {
        try connection.execute("SELECT pg_advisory_lock(7108201)")
        defer { _ = try? connection.execute("SELECT pg_advisory_unlock(7108201)") }
        try connection.execute("CREATE TABLE IF NOT EXISTS alertd_schema (version integer NOT NULL)")
        let found = try connection.execute("SELECT max(version) FROM alertd_schema").first?.first??.int ?? 0
        if found > version {
            throw PGError("the database has alertd schema version \(found), newer than this alertd's (\(version)); "
                + "run a newer alertd")
        }
        guard found < version else { return }
        try connection.execute("BEGIN")
        do {
            let steps = (found < 1 ? version1 : []) + (found < 2 ? version2 : []) + version3
            for statement in steps { try connection.execute(statement) }
            try connection.execute("INSERT INTO alertd_schema (version) VALUES ($1)", [String(version)])
            try connection.execute("COMMIT")
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
    }
}

extension ClusterSchema {
    /// Every column version 3 has, by table, with its type as `information_schema.columns` names it.
    private static let columns: [(table: String, column: String, type: String)] = [
        ("alertd_schema", "version", "integer"),
        ("alertd_cluster", "id", "integer"), ("alertd_cluster", "head", "bigint"), ("alertd_cluster", "epoch", "text"),
        ("alertd_cluster", "rules_version", "bigint"),
        ("alertd_alerts", "id", "text"), ("alertd_alerts", "sequence", "bigint"),
        ("alertd_alerts", "owner_key", "text"),
        ("alertd_alerts", "idempotency_key", "text"), ("alertd_alerts", "draft", "text"),
        ("alertd_alerts", "state", "text"), ("alertd_alerts", "expires_at", "bigint"),
        ("alertd_alerts", "resolved_at", "bigint"), ("alertd_alerts", "alert", "text"),
        ("alertd_events", "idx", "bigint"), ("alertd_events", "kind", "text"), ("alertd_events", "alert", "text"),
        ("alertd_deliveries", "alert_id", "text"), ("alertd_deliveries", "state", "text"),
        ("alertd_deliveries", "attempts", "integer"), ("alertd_deliveries", "last_error", "text"),
        ("alertd_deliveries", "lease_until", "bigint"),
        ("alertd_rules", "name", "text"), ("alertd_rules", "rule", "text"),
        ("alertd_page_key", "id", "integer"), ("alertd_page_key", "key", "text"),
        ("alertd_used_links", "nonce", "text"), ("alertd_used_links", "expires_at", "bigint"),
        ("alertd_notify_outbox", "alert_id", "text"), ("alertd_notify_outbox", "lease_until", "bigint"),
    ]

    /// The unique constraints the writes rely on (an `ON CONFLICT` needs the one on the idempotency key), by the
    /// names PostgreSQL gave them.
    private static let constraints = [
        "alertd_cluster_pkey", "alertd_alerts_pkey", "alertd_alerts_sequence_key",
        "alertd_alerts_owner_key_idempotency_key_key", "alertd_events_pkey", "alertd_deliveries_pkey", "alertd_rules_pkey",
        "alertd_page_key_pkey", "alertd_used_links_pkey", "alertd_notify_outbox_pkey",
    ]

    /// Checks that the tables are as this version makes them and agree with each other: every column with its
    /// type, the unique constraints, the one `alertd_cluster` row, and a head at or past every event and alert
    /// (a head behind them would number new events over old ones).
    ///
    /// - Throws: `PGError` naming everything that is wrong, and what to do.
    static func verify(_ connection: PGConnection) throws(PGError) {
        var wrong: [String] = []
        var found: [String: String] = [:]
        for row in try connection.execute("""
            SELECT table_name, column_name, data_type FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name LIKE 'alertd\\_%'
            """) {
            if let table = row[0], let column = row[1] { found[table + "." + column] = row[2] ?? "" }
        }
        for (table, column, type) in columns {
            switch found[table + "." + column] {
            case nil: wrong.append("\(table) has no column \(column)")
            case type?: break
            case let other?: wrong.append("\(table).\(column) is \(other), not \(type)")
            }
        }
        let named = Set(try connection.execute("""
            SELECT conname FROM pg_constraint WHERE connamespace = current_schema()::regnamespace
            AND contype IN ('p', 'u')
            """).compactMap { $0[0] })
        for constraint in constraints where !named.contains(constraint) {
            wrong.append("the unique constraint \(constraint) is missing")
        }
        if wrong.isEmpty {
            let row = try connection.execute("""
                SELECT (SELECT count(*) FROM alertd_cluster), (SELECT max(head) FROM alertd_cluster),
                       (SELECT max(idx) FROM alertd_events), (SELECT max(sequence) FROM alertd_alerts)
                """).first ?? [nil, nil, nil, nil]
            let head = row[1]?.uint64 ?? 0
            if row[0] != "1" { wrong.append("alertd_cluster has \(row[0] ?? "no") rows, not 1") }
            if let last = row[2]?.uint64, last > head {
                wrong.append("the head (alertd_cluster.head \(head)) is behind the last event (\(last))")
            }
            if let last = row[3]?.uint64, last > head {
                wrong.append("the head (alertd_cluster.head \(head)) is behind the last alert's sequence (\(last))")
            }
        }
        guard wrong.isEmpty else {
            throw PGError("its alertd tables are damaged: " + wrong.joined(separator: "; ")
                + ". Restore the database from a backup (or, to start with no alerts, drop the alertd_* tables)")
        }
    }
}

extension String {
    /// The text as a signed 64-bit integer (as PostgreSQL prints one), or 0.
    var int: Int { Int(self) ?? 0 }

    var uint64: UInt64 { UInt64(self) ?? 0 }

    var int64: Int64 { Int64(self) ?? 0 }
}
