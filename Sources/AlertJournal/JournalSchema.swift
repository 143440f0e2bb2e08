/// The journal's tables, and the steps that bring a file from any earlier schema version to the current one.
///
/// `PRAGMA user_version` holds the version (0: a new, empty file); `PRAGMA application_id` marks the file as
/// alertd's. Each step runs in a transaction of its own with the version bump, so a crash mid-migration leaves
/// the previous version intact. A step, once released, never changes: a new version adds a step.
enum JournalSchema {
    /// `PRAGMA application_id`: "alrd".
    static let applicationID: Int64 = 0x616C_7264

    /// Step `n` (0-based) takes a file from version `n` to `n + 1`.
    static let migrations: [@Sendable (SQLiteConnection) throws(SQLiteError) -> Void] = [version1, version2, version3, version4]

    /// The version this build writes.
    static var currentVersion: Int { migrations.count }

    /// What an open SQLite file holds, as far as the journal is concerned.
    enum Contents: Equatable {
        /// A new, empty file (version 0, no tables).
        case fresh
        /// alertd's journal at this schema version, which this build reads (and migrates when older).
        case journal(version: Int)
        /// An SQLite database that is not alertd's journal.
        case foreign
        /// alertd's journal written by a newer build.
        case newer(version: Int)
    }

    /// Reads the header of the file `connection` has open (which fails on a file that is not a database) and tells
    /// what it holds. Writes nothing.
    static func contents(of connection: SQLiteConnection) throws(SQLiteError) -> Contents {
        let version = Int(try connection.integer("PRAGMA user_version") ?? 0)
        let application = try connection.integer("PRAGMA application_id") ?? 0
        if version == 0, application == 0, try connection.integer("SELECT count(*) FROM sqlite_schema") == 0 {
            return .fresh
        }
        guard application == applicationID, version > 0 else { return .foreign }
        return version <= currentVersion ? .journal(version: version) : .newer(version: version)
    }

    /// Runs the steps from `version` to `currentVersion`.
    static func migrate(_ connection: SQLiteConnection, from version: Int) throws(SQLiteError) {
        for step in version..<currentVersion {
            try connection.execute("BEGIN IMMEDIATE")
            do throws(SQLiteError) {
                try migrations[step](connection)
                try connection.execute("PRAGMA user_version = \(step + 1)")
                try connection.execute("COMMIT")
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// Version 1: alerts, the event history (each event with a copy of its alert), idempotency keys and the meta row
    /// with a new epoch.
    ///
    /// Dates are integer milliseconds since 1970. Sequence numbers and event indexes are unsigned 64-bit values
    /// stored with their bit pattern. An idempotency key without owner has owner `''` (owner names are never
    /// empty), so that `(owner, key)` is unique for keys without owner too.
    private static let version1: @Sendable (SQLiteConnection) throws(SQLiteError) -> Void = { connection in
        try connection.execute("""
            PRAGMA application_id = \(applicationID);
            CREATE TABLE meta (
                singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                epoch TEXT NOT NULL,
                change_index INTEGER NOT NULL,
                next_sequence INTEGER NOT NULL
            ) STRICT;
            CREATE TABLE alerts (
                sequence INTEGER PRIMARY KEY,
                id TEXT NOT NULL,
                \(version1AlertColumns)
            ) STRICT;
            CREATE TABLE events (
                idx INTEGER PRIMARY KEY,
                kind TEXT NOT NULL,
                sequence INTEGER NOT NULL,
                id TEXT NOT NULL,
                \(version1AlertColumns)
            ) STRICT;
            CREATE TABLE idempotency (
                sequence INTEGER PRIMARY KEY,
                owner TEXT NOT NULL,
                key TEXT NOT NULL,
                draft TEXT NOT NULL,
                UNIQUE (owner, key)
            ) STRICT;
            """)
        let insert = try connection.prepare("INSERT INTO meta VALUES (1, ?, 0, 1)")
        insert.bind(newEpoch(), at: 1)
        try insert.run()
    }

    /// Version 2: an event row names its alert instead of holding a copy of it, which halves what a create or a
    /// resolution writes. The alert's row in `alerts` shows every event of it (see `EventSnapshot`); once retention
    /// drops an alert whose events are still in the history, its last row moves to `event_alerts`, and leaves it
    /// with the last of those events.
    ///
    /// From version 1: each event keeps its index, kind and sequence number; each alert that events name but
    /// `alerts` no longer holds gets its latest event's copy in `event_alerts`.
    private static let version2: @Sendable (SQLiteConnection) throws(SQLiteError) -> Void = { connection in
        let alertColumns = "sequence, id, owner, presenter, title, message, style, tag, animated, buttons, fields, "
            + "created_at, expires_at, callback, delivery_state, delivery_attempts, delivery_last_error, "
            + "delivery_last_attempt_at, result"
        try connection.execute("""
            CREATE TABLE event_alerts (
                sequence INTEGER PRIMARY KEY,
                id TEXT NOT NULL,
                \(version1AlertColumns)
            ) STRICT;
            INSERT INTO event_alerts (\(alertColumns))
                SELECT \(alertColumns) FROM (
                    SELECT max(idx), * FROM events
                    WHERE sequence NOT IN (SELECT sequence FROM alerts)
                    GROUP BY sequence);
            CREATE TABLE events_v2 (
                idx INTEGER PRIMARY KEY,
                kind TEXT NOT NULL,
                sequence INTEGER NOT NULL
            ) STRICT;
            INSERT INTO events_v2 (idx, kind, sequence) SELECT idx, kind, sequence FROM events;
            DROP TABLE events;
            ALTER TABLE events_v2 RENAME TO events;
            """)
    }

    /// Version 3: who may answer an alert (`AnswerPolicy` as JSON; `NULL` for the default: anyone with the role), in
    /// `alerts` and `event_alerts`. Rows from version 2 keep `NULL`: their alerts had no policy.
    private static let version3: @Sendable (SQLiteConnection) throws(SQLiteError) -> Void = { connection in
        try connection.execute("""
            ALTER TABLE alerts ADD COLUMN policy TEXT;
            ALTER TABLE event_alerts ADD COLUMN policy TEXT;
            """)
    }

    /// Version 4: the rules that answer alerts (`AnswerRule` as JSON), one row per rule.
    private static let version4: @Sendable (SQLiteConnection) throws(SQLiteError) -> Void = { connection in
        try connection.execute("CREATE TABLE rules (name TEXT PRIMARY KEY, rule TEXT NOT NULL) STRICT;")
    }

    /// The columns of an alert after its sequence number and id, in `alerts` and `event_alerts` (and in version 1's
    /// `events`).
    private static let version1AlertColumns = """
        owner TEXT, presenter TEXT NOT NULL, title TEXT NOT NULL, message TEXT NOT NULL, style TEXT NOT NULL,
        tag INTEGER NOT NULL, animated INTEGER NOT NULL, buttons TEXT NOT NULL, fields TEXT NOT NULL,
        created_at INTEGER NOT NULL, expires_at INTEGER, callback TEXT, delivery_state TEXT,
        delivery_attempts INTEGER, delivery_last_error TEXT, delivery_last_attempt_at INTEGER, result TEXT
        """

    /// 16 random bytes in hex: the instance identity, made once per data dir.
    static func newEpoch() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for _ in 0..<16 {
            let byte = generator.next() as UInt8
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
