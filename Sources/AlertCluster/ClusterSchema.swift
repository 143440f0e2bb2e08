/// The cluster's tables in PostgreSQL, made and migrated by alertd itself: `alertd_schema` holds the version.
///
/// - `alertd_cluster`: one row; `head` is the index of the last event committed (the counter every batch takes
///   once, so event indexes are gap-free and in commit order), `epoch` the cluster's identity.
/// - `alertd_alerts`: every kept alert, its JSON in `alert`; `state` is `pending` or how it resolved. An
///   idempotency key is unique per owner (`owner_key` is `-` for nobody, else `o:` and the owner).
/// - `alertd_events`: every kept event by index, with the alert as it was just after the change.
/// - `alertd_deliveries`: the callback of each resolved alert that has one; an instance claims a pending one by
///   setting `lease_until` (`FOR UPDATE SKIP LOCKED`), and it is claimable again once the lease passes.
enum ClusterSchema {
    /// The version this build writes.
    static let version = 1

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
            for statement in version1 { try connection.execute(statement) }
            try connection.execute("INSERT INTO alertd_schema (version) VALUES ($1)", [String(version)])
            try connection.execute("COMMIT")
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
    }
}

extension String {
    /// The text as a signed 64-bit integer (as PostgreSQL prints one), or 0.
    var int: Int { Int(self) ?? 0 }

    var uint64: UInt64 { UInt64(self) ?? 0 }
}
