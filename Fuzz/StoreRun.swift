import Dispatch
import Synchronization
@testable import AlertAPI
@testable import AlertCore
import JSON

/// Runs `work` to completion from libFuzzer's synchronous callback: a task on the global executor while
/// this thread waits. A trap inside the task is a finding like any other.
func blocking(_ work: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
        await work()
        done.signal()
    }
    done.wait()
}

/// The store every input uses, as alertd has one for its lifetime. Each input resolves the alert it creates, and
/// few resolved alerts and events are kept, so its memory stays bounded; an idempotency key goes with its alert.
let fuzzStore = AlertStore(configuration: .init(maxPending: 16, maxResolved: 4, limits: fuzzLimits, eventHistory: 8))

/// Counts inputs, to keep idempotency keys apart.
let inputNumber = Atomic<UInt64>(0)

/// Creates the draft, answers it, dismisses it and reads it back, checking each outcome.
func runStore(
    _ draft: AlertDraft, _ normalized: AlertDraft.Normalized, answer: AnswerDraft?, idempotencyKey: String?
) {
    blocking {
        let store = fuzzStore
        // Keys are the store's for as long as their alerts are kept: make each input's its own.
        let key = idempotencyKey.map { "\(inputNumber.add(1, ordering: .relaxed).newValue) \($0)" }
        let alert = await checkCreate(draft, normalized, in: store, idempotencyKey: key)
        var winner: AlertResult?
        if let answer {
            winner = await checkAnswer(answer, to: alert, in: store)
        }
        winner = await checkDismiss(alert, in: store, after: winner)
        do {
            let final = try await store.alert(alert.id)
            expect(final.result == winner, "the stored result is not the one that won")
            checkWritten(final, redactingSecrets: false)
            checkWritten(final, redactingSecrets: true)
        } catch {
            fatalError("invariant broken: a resolved alert is gone at once: \(error)")
        }
    }
}

/// Create succeeds for a draft that passed the rules, and stores what the rules made of it.
private func checkCreate(
    _ draft: AlertDraft, _ normalized: AlertDraft.Normalized, in store: AlertStore, idempotencyKey: String?
) async -> Alert {
    let alert: Alert
    do {
        let created = try await store.create(draft, idempotencyKey: idempotencyKey)
        expect(!created.replayed, "a first create was a replay")
        alert = created.alert
    } catch {
        fatalError("invariant broken: the store refused a draft that passed the rules: \(error)")
    }
    expect(alert.buttons == normalized.buttons && alert.fields == normalized.fields, "stored buttons or fields")
    expect(alert.title == draft.title && alert.message == draft.message && alert.style == draft.style
           && alert.tag == draft.tag && alert.presenter == draft.presenter && alert.animated == draft.animated,
           "the stored alert differs from the draft")
    expect(alert.result == nil, "a new alert is resolved")
    expect((alert.expiresAt == nil) == (draft.timeout == nil), "expiresAt without a timeout, or the reverse")
    expect((alert.delivery == nil) == (draft.callback == nil), "webhook without a callback, or the reverse")
    checkWritten(alert, redactingSecrets: false)
    checkWritten(alert, redactingSecrets: true)
    if let idempotencyKey {
        do {
            let replay = try await store.create(draft, idempotencyKey: idempotencyKey)
            expect(replay.replayed && replay.alert.id == alert.id, "a retry with the key made another alert")
        } catch {
            fatalError("invariant broken: a retry with the same key and draft failed: \(error)")
        }
        var changed = draft
        changed.tag &+= 1
        do {
            _ = try await store.create(changed, idempotencyKey: idempotencyKey)
            expect(false, "a reused key with another draft was accepted")
        } catch {
            expect(error.kind == .keyReused, "a reused key: \(error)")
            checkProblem(Problem(error), statuses: [422], "reused key")
        }
    }
    return alert
}

/// What a valid answer resolves to: the chosen button and the values; nil when the store must refuse it.
private func expectedAnswer(_ answer: AnswerDraft, to alert: Alert) -> (button: AlertButton, values: [String])? {
    let button: AlertButton? = switch answer.choice {
    case .index(let index): alert.buttons.indices.contains(index) ? alert.buttons[index] : nil
    case .title(let title): alert.buttons.first { $0.title == title }
    }
    let values = answer.values ?? alert.fields.map(\.text)
    guard let button, values.count == alert.fields.count, values.allSatisfy({ $0.count <= fuzzLimits.fieldText })
    else { return nil }
    return (button, values)
}

/// The answer wins with the Result the contract describes, or is refused (422) exactly when it is invalid;
/// an alert that already expired answers 409.
private func checkAnswer(_ answer: AnswerDraft, to alert: Alert, in store: AlertStore) async -> AlertResult? {
    let expected = expectedAnswer(answer, to: alert)
    do {
        let result = try await store.answer(alert.id, with: answer)
        guard let expected else { fatalError("invariant broken: the store accepted an invalid answer: \(answer)") }
        expect(result.buttonIndex == expected.button.index && result.buttonTitle == expected.button.title,
               "answered with button \(result.buttonIndex), expected \(expected.button.index)")
        expect(result.ok == (expected.button.style != .cancel), "ok is \(result.ok) for a \(expected.button.style)")
        expect(result.values == expected.values && result.resolution == .answered, "values or resolution")
        var writer = JSONWriter()
        writer.write(result, fields: nil)
        checkWritten(result, parseBack(writer.bytes, "a Result"), secureFields: nil, "a Result")
        return result
    } catch {
        switch error.kind {
        case .invalid:
            expect(expected == nil, "the store refused a valid answer: \(error)")
            checkProblem(Problem(error), statuses: [422], "answer")
            return nil
        case .alreadyResolved:
            expect(error.result?.resolution == .expired, "a pending alert was already resolved: \(error)")
            return error.result
        default:
            fatalError("invariant broken: answering failed: \(error)")
        }
    }
}

/// Dismissing resolves as the cancel button (the only button when there is one), unless a result already
/// won: then it is a 409 carrying that result.
private func checkDismiss(_ alert: Alert, in store: AlertStore, after winner: AlertResult?) async -> AlertResult? {
    do {
        let result = try await store.dismiss(alert.id)
        expect(winner == nil, "dismissed an alert that was already resolved")
        let button = alert.cancelButton ?? alert.buttons[0]
        expect(result.buttonIndex == button.index && result.ok == (button.style != .cancel), "dismissal's button")
        expect(result.values == alert.fields.map(\.text) && result.resolution == .dismissed, "dismissal's values")
        return result
    } catch {
        expect(error.kind == .alreadyResolved, "dismissing failed: \(error)")
        if let winner {
            expect(error.result == winner, "409 carries another result than the one that won")
        } else {
            expect(error.result?.resolution == .expired, "dismissal refused for a pending alert: \(error)")
        }
        var problem = Problem(error)
        checkProblem(problem, statuses: [409], "already resolved")
        problem.secretFields = alert.fields
        let body = parseBack(problem.response.body, "a 409 hiding secure values").objectValue
        if let result = error.result {
            checkWritten(result, body?["result"], secureFields: alert.fields, "a 409's result")
        }
        return error.result
    }
}
