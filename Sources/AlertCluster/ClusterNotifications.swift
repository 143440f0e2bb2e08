import AlertCore
import Foundation
import Locking

/// The cluster's outbox of push notifications (`--notify`, `--notify-webhook`), so that each target gets every new
/// alert at least once although the instance that took the create dies while it is still retrying.
///
/// `alertd_notify_outbox` (version 3) holds a row per pending alert whose notifications are not done. The row is
/// written in the create's own transaction, by the trigger `alertd_notify_enqueue` on `alertd_alerts` (made by the
/// first instance that starts with a notify target; from then on every create pays one more row), and leased to
/// the instance that took the create for `lease` (longer than a notification's whole retry schedule), which
/// notifies from memory and deletes the row once every target had its last attempt (`finished`). An instance that
/// dies leaves its rows; once their lease has passed, any instance with notify targets claims them
/// (`FOR UPDATE SKIP LOCKED`, so one does), leases them again and notifies: a target may then get one twice.
/// Rows of alerts that were resolved meanwhile are deleted, and a row goes with its alert.
///
/// A thread of its own, with a connection of its own, deletes finished rows in batches and claims due ones every
/// `sweepInterval`.
public final class ClusterNotifications: @unchecked Sendable {
    // @unchecked Sendable: `stopped`, `finishedIDs` and `claimed` are guarded by `lock`; `url` is immutable; the
    // connection lives in `run()`, on the thread only.

    /// How long the creating instance (or one that claimed them) has an alert's notifications, from the create
    /// (or the claim): above the notifications' retry schedule (8 attempts of at most 10 s, backing off to 30 s).
    public static let lease: Int64 = 300
    /// How often due rows are looked for, and finished ones deleted.
    static let sweepInterval = 2.0

    private let url: String
    private let lock = NSLock()
    private var stopped = false
    private var finishedIDs: [String] = []
    private var claimed: (@Sendable ([AlertID]) -> Void)?

    /// Makes the trigger when no instance has yet, on `connection` (under the schema's advisory lock, so instances
    /// starting together make it once).
    init(url: String, connection: PGConnection) throws(PGError) {
        self.url = url
        try connection.execute("SELECT pg_advisory_lock(7108201)")
        defer { _ = try? connection.execute("SELECT pg_advisory_unlock(7108201)") }
        let exists = try connection.execute(
            "SELECT 1 FROM pg_trigger WHERE tgname = 'alertd_notify_enqueue' AND NOT tgisinternal")
        guard exists.isEmpty else { return }
        try connection.execute("""
            CREATE TRIGGER alertd_notify_enqueue AFTER INSERT ON alertd_alerts
            FOR EACH ROW WHEN (NEW.state = 'pending') EXECUTE FUNCTION alertd_notify_enqueue()
            """)
    }

    /// Starts claiming: `claimed` gets the alerts whose notifications another instance left unfinished, now this
    /// one's to send (again).
    public func start(claimed: @escaping @Sendable ([AlertID]) -> Void) {
        lock.withLock { self.claimed = claimed }
        let thread = Thread { [self] in run() }
        thread.name = "alertd-pg-notify"
        thread.start()
    }

    public func stop() {
        lock.withLock { stopped = true }
    }

    /// Every target had its last attempt at the alert's notification: its row goes (at the next sweep).
    public func finished(_ id: AlertID) {
        lock.withLock { finishedIDs.append(id.rawValue) }
    }

    private func run() {
        var connection: PGConnection?
        while !lock.withLock({ stopped }) {
            Thread.sleep(forTimeInterval: Self.sweepInterval)
            let (finished, claimed) = lock.withLock { () -> ([String], (@Sendable ([AlertID]) -> Void)?) in
                defer { finishedIDs = [] }
                return (finishedIDs, self.claimed)
            }
            do throws(PGError) {
                let open: PGConnection
                if let connection { open = connection } else {
                    open = try PGConnection(url)
                    connection = open
                }
                if !finished.isEmpty {
                    try open.execute("DELETE FROM alertd_notify_outbox WHERE alert_id = ANY($1::text[])",
                                     [Self.array(finished)])
                }
                let now = Int64(Date().timeIntervalSince1970)
                let due = try open.execute("""
                    UPDATE alertd_notify_outbox SET lease_until = $1 WHERE alert_id IN (
                        SELECT alert_id FROM alertd_notify_outbox WHERE lease_until <= $2 ORDER BY lease_until
                        LIMIT 100 FOR UPDATE SKIP LOCKED)
                    RETURNING alert_id
                    """, [String(now + Self.lease), String(now)]).compactMap { $0.first ?? nil }
                if !due.isEmpty { claimed?(due.map { AlertID(rawValue: $0) }) }
            } catch {
                // Tried again at the next sweep, on a new connection; finished rows are deleted then (or claimed
                // and notified once more: at least once).
                lock.withLock { finishedIDs.append(contentsOf: finished) }
                connection = nil
            }
        }
    }

    /// A PostgreSQL array literal of `texts` (`{"a","b"}`), quoted so that any id reads back as itself.
    static func array(_ texts: [String]) -> String {
        "{" + texts.map { "\"" + $0.replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "\"", with: "\\\"") + "\"" }.joined(separator: ",") + "}"
    }
}
