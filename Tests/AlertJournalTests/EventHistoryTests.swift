import AlertCore
import AlertJournal
import Foundation
import Testing

/// An event row names its alert; the alert's row shows every event of it. These check what a restart restores when
/// the alert changed after its events, when retention dropped it while its events were still in the history, and from
/// a file of schema version 1, whose events held a copy of their alert.
@Suite(.timeLimit(.minutes(1)))
struct EventHistoryTests {
    /// An event shows the alert as it was then: no result on `created`, and the delivery before any attempt, however
    /// the alert's row changed since.
    @Test func anEventShowsTheAlertAsItWasThen() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (journal, _) = try await open(directory.path)
        let alert = fullAlert(1)
        let answer = resolved(alert, .answered, button: 1, values: ["a", "b"])
        var failed = WebhookDelivery(url: "https://hooks.example/a")
        failed.state = .failed
        failed.attempts = 3
        failed.lastError = "timed out"
        failed.lastAttemptAt = stored(20_000)
        #expect(await journal.commit([.created(alert, event: 1, idempotency: nil)]) == nil)
        #expect(await journal.commit([.resolved(answer, event: 2), .delivery(sequence: 1, failed)]) == nil)
        journal.close()

        let restored = try await image(directory.path)
        var now = answer
        now.delivery = failed
        #expect(restored.alerts == [now])
        #expect(restored.events == [
            AlertEvent(index: 1, kind: .created, alert: alert),
            AlertEvent(index: 2, kind: .answered, alert: answer),
        ])
    }

    /// Events older than the history are deleted in batches, not in every commit: until a batch is due the file holds
    /// a few more rows than the history, and a restart still restores exactly the newest `eventHistory` events.
    @Test func oldEventsAreDeletedInBatchesAndARestartShowsExactlyTheHistory() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let database = directory.file("alertd.sqlite3")
        let (journal, _) = try await open(directory.path, eventHistory: 16)  // a batch is 2 events
        await createOneByOne(1...19, in: journal)
        // The floor is at 3 (19 - 16): trimmed through 2 when it reached 2, the row of event 3 still there.
        #expect(rawSQL(database, "SELECT count(*) FROM events") == 17)
        #expect(await journal.commit([.created(plainAlert(20), event: 20, idempotency: nil)]) == nil)
        #expect(rawSQL(database, "SELECT count(*) FROM events") == 16)
        #expect(await journal.commit([.created(plainAlert(21), event: 21, idempotency: nil)]) == nil)
        #expect(rawSQL(database, "SELECT count(*) FROM events") == 17)
        journal.close()

        let restored = try await image(directory.path, eventHistory: 16)
        #expect(restored.events.map(\.index) == Array(6...21))
        #expect(restored.historyFloor == 5, "a cursor below 5 names an event the history no longer holds")
        #expect(restored.changeIndex == 21)
        #expect(restored.alerts.count == 21)
    }

    /// Rows below the history that a run had not trimmed yet go at the next open, so a later restart with a larger
    /// `--event-history` never reads an event whose alert retention dropped in between (it would refuse the file as
    /// damaged).
    @Test func aLargerHistoryAfterARestartFindsEveryEventsAlert() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var (journal, _) = try await open(directory.path, eventHistory: 16)  // a batch is 2 events
        await createOneByOne(1...19, in: journal)
        journal.close()  // the floor is at 3, and event 3's row is not trimmed yet
        (journal, _) = try await open(directory.path, eventHistory: 16)
        #expect(await journal.commit([.dropped(sequence: 3)]) == nil)  // retention, in a commit without events
        journal.close()

        let restored = try await image(directory.path, eventHistory: 20)
        #expect(restored.events.map(\.index) == Array(4...19))
        #expect(restored.alerts.map(\.sequence) == [1, 2] + Array(4...19))
    }

    /// The same when retention dropped the alert in the run that wrote its event (its row is kept for the event),
    /// and a restart with the same history came in between.
    @Test func aLargerHistoryAfterTwoRestartsFindsEveryEventsAlert() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (journal, _) = try await open(directory.path, eventHistory: 16)
        await createOneByOne(1...19, in: journal)
        #expect(await journal.commit([.dropped(sequence: 3)]) == nil)
        journal.close()
        _ = try await image(directory.path, eventHistory: 16)

        let restored = try await image(directory.path, eventHistory: 20)
        #expect(restored.events.map(\.index) == Array(4...19))
    }

    /// Retention drops an alert whose events are still in the history: a restart still shows them, and the kept copy
    /// goes once the last of them leaves the history.
    @Test func aDroppedAlertIsKeptForItsEventsUntilTheyLeaveTheHistory() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let database = directory.file("alertd.sqlite3")
        var (journal, _) = try await open(directory.path, eventHistory: 3)
        let first = plainAlert(1)
        let answer = resolved(first, .answered, button: 0)
        #expect(await journal.commit([.created(first, event: 1, idempotency: nil)]) == nil)
        #expect(await journal.commit([.resolved(answer, event: 2), .dropped(sequence: 1)]) == nil)
        #expect(rawSQL(database, "SELECT count(*) FROM event_alerts") == 1)
        journal.close()

        var restored = try await image(directory.path, eventHistory: 3)
        #expect(restored.alerts.isEmpty)
        #expect(restored.events == [
            AlertEvent(index: 1, kind: .created, alert: first),
            AlertEvent(index: 2, kind: .answered, alert: answer),
        ])

        (journal, _) = try await open(directory.path, eventHistory: 3)
        #expect(await journal.commit([.created(plainAlert(2), event: 3, idempotency: nil)]) == nil)
        #expect(await journal.commit([.created(plainAlert(3), event: 4, idempotency: nil)]) == nil)
        // Event 1 left the history; event 2 still shows the dropped alert.
        #expect(rawSQL(database, "SELECT count(*) FROM event_alerts") == 1)
        #expect(await journal.commit([.created(plainAlert(4), event: 5, idempotency: nil)]) == nil)
        #expect(rawSQL(database, "SELECT count(*) FROM event_alerts") == 0)
        journal.close()

        restored = try await image(directory.path, eventHistory: 3)
        #expect(restored.events.map(\.alert.sequence) == [2, 3, 4])
        #expect(restored.alerts == [plainAlert(2), plainAlert(3), plainAlert(4)])
    }

    /// A dropped alert none of whose events is in the history any more leaves no copy behind.
    @Test func anAlertDroppedAfterItsEventsLeftTheHistoryLeavesNoCopy() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let database = directory.file("alertd.sqlite3")
        let (journal, _) = try await open(directory.path, eventHistory: 2)
        let first = plainAlert(1)
        #expect(await journal.commit([.created(first, event: 1, idempotency: nil)]) == nil)
        #expect(await journal.commit([.resolved(resolved(first, .dismissed, button: 0), event: 2)]) == nil)
        #expect(await journal.commit([.created(plainAlert(2), event: 3, idempotency: nil)]) == nil)
        #expect(await journal.commit([.created(plainAlert(3), event: 4, idempotency: nil)]) == nil)
        #expect(await journal.commit([.dropped(sequence: 1)]) == nil)
        #expect(rawSQL(database, "SELECT count(*) FROM event_alerts") == 0)
        #expect(rawSQL(database, "SELECT count(*) FROM alerts") == 2)
        journal.close()
    }

    /// A file of schema version 1 (each event row with a copy of its alert) opens with the same image: the events
    /// of an alert retention dropped included.
    @Test func aVersion1FileOpensWithTheSameImage() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let database = directory.file("alertd.sqlite3")
        let (journal, _) = try await open(directory.path)
        let kept = fullAlert(1)
        let dropped = plainAlert(2)
        let pending = fullAlert(3, owner: nil, callback: nil)
        let answer = resolved(kept, .answered, button: 1, values: ["x", "y"])
        let dismissal = resolved(dropped, .dismissed, button: 0)
        #expect(await journal.commit([
            .created(kept, event: 1, idempotency: nil), .created(dropped, event: 2, idempotency: nil),
            .created(pending, event: 3, idempotency: nil),
        ]) == nil)
        #expect(await journal.commit([
            .resolved(answer, event: 4), .resolved(dismissal, event: 5), .dropped(sequence: 2),
        ]) == nil)
        journal.close()
        let expected = try await image(directory.path)

        // Back to version 1: each event row holds the alert as it was at the event.
        let columns = """
            owner, presenter, title, message, style, tag, animated, buttons, fields, created_at, expires_at, \
            callback, delivery_state, delivery_attempts, delivery_last_error, delivery_last_attempt_at, result
            """
        let definitions = """
            owner TEXT, presenter TEXT NOT NULL, title TEXT NOT NULL, message TEXT NOT NULL, style TEXT NOT NULL,
            tag INTEGER NOT NULL, animated INTEGER NOT NULL, buttons TEXT NOT NULL, fields TEXT NOT NULL,
            created_at INTEGER NOT NULL, expires_at INTEGER, callback TEXT, delivery_state TEXT,
            delivery_attempts INTEGER, delivery_last_error TEXT, delivery_last_attempt_at INTEGER, result TEXT
            """
        _ = rawSQL(database, """
            CREATE TABLE events_v1 (
                idx INTEGER PRIMARY KEY, kind TEXT NOT NULL, sequence INTEGER NOT NULL, id TEXT NOT NULL,
                \(definitions)
            ) STRICT;
            INSERT INTO events_v1 SELECT e.idx, e.kind, a.sequence, a.id, \(columns)
                FROM events e JOIN (SELECT * FROM alerts UNION ALL SELECT * FROM event_alerts) a USING (sequence);
            UPDATE events_v1 SET result = NULL WHERE kind = 'created';
            DROP TABLE events;
            DROP TABLE event_alerts;
            ALTER TABLE events_v1 RENAME TO events;
            ALTER TABLE alerts DROP COLUMN policy;
            DROP TABLE rules;
            PRAGMA user_version = 1;
            """)
        #expect(rawSQL(database, "PRAGMA user_version") == 1)
        #expect(rawSQL(database, "SELECT count(*) FROM events") == 5)

        let migrated = try await image(directory.path)
        #expect(rawSQL(database, "PRAGMA user_version") == 4)
        #expect(migrated.alerts == expected.alerts)
        #expect(migrated.events == expected.events)
        #expect(migrated.events.map(\.alert.sequence) == [1, 2, 3, 1, 2])
        #expect(migrated.changeIndex == 5 && migrated.nextSequence == 4)
        #expect(migrated.epoch == expected.epoch)
        #expect(rawSQL(database, "SELECT count(*) FROM event_alerts") == 1)
    }

    /// Creates plain alerts with these sequence numbers, each in a commit of its own with the event of the same index.
    private func createOneByOne(_ sequences: ClosedRange<UInt64>, in journal: SQLiteJournal) async {
        for sequence in sequences {
            #expect(await journal.commit([.created(plainAlert(sequence), event: sequence, idempotency: nil)]) == nil)
        }
    }
}
