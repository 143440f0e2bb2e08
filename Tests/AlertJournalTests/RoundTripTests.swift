import AlertCore
import AlertJournal
import Foundation
import Testing

/// What is committed comes back, equal, when the journal is opened again: what a restart restores.
@Suite(.timeLimit(.minutes(1)))
struct RoundTripTests {
    @Test func aNewJournalIsEmptyWithAnEpochThatLastsAcrossOpens() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let first = try await image(directory.path)
        #expect(first.alerts.isEmpty && first.events.isEmpty && first.idempotency.isEmpty)
        #expect(first.changeIndex == 0 && first.nextSequence == 1)
        #expect(first.epoch.count == 32 && first.epoch.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(try await image(directory.path).epoch == first.epoch)

        let other = TemporaryDirectory()
        defer { other.remove() }
        #expect(try await image(other.path).epoch != first.epoch)
    }

    @Test func everyRecordKindRoundTrips() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (journal, _) = try await open(directory.path)
        let keyed = fullAlert(1)
        let anonymous = plainAlert(2)
        let answered = fullAlert(3, owner: nil)
        let dismissed = plainAlert(4)
        let expired = fullAlert(5, callback: nil)
        let dropped = plainAlert(6)
        let ownedKey = IdempotencyRecord(owner: "deployer", key: "k-1", draft: fullDraft())
        let anonymousKey = IdempotencyRecord(owner: nil, key: "k-1", draft: fullDraft(timeout: nil, callback: nil))
        let droppedKey = IdempotencyRecord(owner: nil, key: "k-6", draft: AlertDraft(title: "x"))

        var failure = await journal.commit([
            .created(keyed, event: 1, idempotency: ownedKey),
            .created(anonymous, event: 2, idempotency: anonymousKey),
        ])
        #expect(failure == nil)
        failure = await journal.commit([.created(answered, event: 3, idempotency: nil)])
        #expect(failure == nil)
        failure = await journal.commit([
            .created(dismissed, event: 4, idempotency: nil),
            .created(expired, event: 5, idempotency: nil),
            .created(dropped, event: 6, idempotency: droppedKey),
        ])
        #expect(failure == nil)

        let answer = resolved(answered, .answered, button: 1, values: ["v1.3", "s3cret"])
        let dismissal = resolved(dismissed, .dismissed, button: 0)
        let expiry = resolved(expired, .expired, button: 0, values: ["v1.2", ""])
        let gone = resolved(dropped, .answered, button: 0)
        var delivered = WebhookDelivery(url: "https://hooks.example/a")
        delivered.state = .failed
        delivered.attempts = 5
        delivered.lastError = "connection refused"
        delivered.lastAttemptAt = stored(20_000)
        var answerDelivered = answer
        answerDelivered.delivery = delivered
        failure = await journal.commit([
            .resolved(answer, event: 7), .resolved(dismissal, event: 8), .resolved(expiry, event: 9),
            .resolved(gone, event: 10),
        ])
        #expect(failure == nil)
        failure = await journal.commit([.delivery(sequence: 3, delivered), .dropped(sequence: 6)])
        #expect(failure == nil)
        journal.close()

        let restored = try await image(directory.path)
        #expect(restored.alerts == [keyed, anonymous, answerDelivered, dismissal, expiry])
        #expect(restored.changeIndex == 10)
        #expect(restored.nextSequence == 7)
        #expect(restored.keyRows == [
            KeyRow(owner: "deployer", key: "k-1", draft: fullDraft(), sequence: 1),
            KeyRow(owner: nil, key: "k-1", draft: fullDraft(timeout: nil, callback: nil), sequence: 2),
        ])
        // Each event holds the alert as it was at the event, not as it is now.
        #expect(restored.events == [
            AlertEvent(index: 1, kind: .created, alert: keyed),
            AlertEvent(index: 2, kind: .created, alert: anonymous),
            AlertEvent(index: 3, kind: .created, alert: answered),
            AlertEvent(index: 4, kind: .created, alert: dismissed),
            AlertEvent(index: 5, kind: .created, alert: expired),
            AlertEvent(index: 6, kind: .created, alert: dropped),
            AlertEvent(index: 7, kind: .answered, alert: answer),
            AlertEvent(index: 8, kind: .dismissed, alert: dismissal),
            AlertEvent(index: 9, kind: .expired, alert: expiry),
            AlertEvent(index: 10, kind: .answered, alert: gone),
        ])
    }

    /// Rows in a row that share their buttons and fields JSON are decoded once; each alert still comes back with its
    /// own buttons and fields, also when a row differs from the one before only in a field's text or a button.
    @Test func neighbouringRowsWithAndWithoutTheSameButtonsAndFieldsRoundTrip() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (journal, _) = try await open(directory.path)
        var typed = fullAlert(3)
        typed.fields[0].text = "typed"
        var renamed = fullAlert(4)
        renamed.buttons[1].title = "Ship"
        let alerts = [fullAlert(1), fullAlert(2), typed, renamed, plainAlert(5), plainAlert(6), fullAlert(7)]
        let records = alerts.enumerated().map { JournalRecord.created($1, event: UInt64($0 + 1), idempotency: nil) }
        let failure = await journal.commit(records)
        #expect(failure == nil)
        journal.close()
        #expect(try await image(directory.path).alerts == alerts)
    }

    /// Who answered (a token's name) is part of the result: a restart keeps it, in the alert and in its event.
    @Test func aResultKeepsItsResponder() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (journal, _) = try await open(directory.path)
        let alert = plainAlert(1)
        #expect(await journal.commit([.created(alert, event: 1, idempotency: nil)]) == nil)
        var answer = resolved(alert, .answered, button: 0)
        answer.result?.responder = "oncall"
        #expect(await journal.commit([.resolved(answer, event: 2)]) == nil)
        journal.close()

        let restored = try await image(directory.path)
        #expect(restored.alerts == [answer])
        #expect(restored.events.last?.alert.result?.responder == "oncall")
    }

    @Test func theEventHistoryKeepsTheMostRecentEventsEqualToTheAppendedOnes() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (journal, _) = try await open(directory.path, eventHistory: 3)
        var events: [AlertEvent] = []
        for sequence in UInt64(1)...5 {
            let alert = plainAlert(sequence)
            events.append(AlertEvent(index: sequence, kind: .created, alert: alert))
            #expect(await journal.commit([.created(alert, event: sequence, idempotency: nil)]) == nil)
        }
        let answer = resolved(plainAlert(2), .answered, button: 0)
        events.append(AlertEvent(index: 6, kind: .answered, alert: answer))
        #expect(await journal.commit([.resolved(answer, event: 6)]) == nil)
        journal.close()

        let restored = try await image(directory.path, eventHistory: 3)
        #expect(restored.events == Array(events.suffix(3)))
        #expect(restored.changeIndex == 6)
        // The alerts are all kept: only events are trimmed.
        #expect(restored.alerts.map(\.sequence) == [1, 2, 3, 4, 5])
        // Opening with a shorter history gives the most recent events only.
        #expect(try await image(directory.path, eventHistory: 2).events == Array(events.suffix(2)))
    }

    @Test func aKeyWhoseAlertWasDroppedCanBeUsedAgain() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (journal, _) = try await open(directory.path)
        let key = IdempotencyRecord(owner: "ci", key: "same", draft: AlertDraft(title: "one"))
        let again = IdempotencyRecord(owner: "ci", key: "same", draft: AlertDraft(title: "two"))
        #expect(await journal.commit([.created(plainAlert(1), event: 1, idempotency: key)]) == nil)
        #expect(await journal.commit([
            .resolved(resolved(plainAlert(1), .answered, button: 0), event: 2), .dropped(sequence: 1),
            .created(plainAlert(2), event: 3, idempotency: again),
        ]) == nil)
        journal.close()
        let keyRows = try await image(directory.path).keyRows
        #expect(keyRows == [KeyRow(owner: "ci", key: "same", draft: again.draft, sequence: 2)])
    }

    @Test func storedDatesFormatAsTheyWereServed() {
        let date = Date(timeIntervalSince1970: 1_767_225_600.123_456_7)
        let kept = SQLiteJournal.storedDate(date)
        #expect(abs(kept.timeIntervalSince(date)) < 0.0005)
        #expect(SQLiteJournal.storedDate(kept) == kept)
    }
}
