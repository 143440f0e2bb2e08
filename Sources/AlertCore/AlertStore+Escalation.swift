import AlertModel
import Foundation

/// Escalation: a pending alert takes its next step when the step's time since creation comes (`EscalationStep`).
extension AlertStore {
    /// Schedules the next escalation step of a pending alert, if it has one left.
    func scheduleEscalation(of alert: Alert) {
        guard let due = alert.nextEscalationAt else { return }
        schedule(Deadline(instant: .now + .milliseconds(max(due.timeIntervalSinceNow, 0) * 1000), kind: .escalation(alert.sequence)))
    }

    /// Takes every escalation step of the pending alert `sequence` whose wall-clock time came, each with an event of
    /// its own, and schedules the step after. Steps that came due together (a late timer, a restart) all fire in this
    /// call, so they come before an expiry that was due after them.
    func escalate(_ sequence: UInt64) {
        while let alert = records[sequence], let due = alert.nextEscalationAt {
            let early = due.timeIntervalSinceNow
            guard early <= 0 else {
                schedule(Deadline(instant: .now + .milliseconds(early * 1000 + 1), kind: .escalation(sequence)))
                return
            }
            takeStep(of: alert)
        }
    }

    /// Takes the next escalation step of a pending alert and journals it.
    private func takeStep(of alert: Alert) {
        guard let moved = alert.escalated(at: .storeNow, event: changeIndex + 1) else { return }
        store(step: moved, leaving: alert)
        journalize(.escalated(moved, event: changeIndex))
    }

    /// Stores a pending alert after an escalation step (`moved`, from `alert`): moves it to the step's presenter's
    /// queue, widens who may answer and makes its `escalated` event.
    func store(step moved: Alert, leaving alert: Alert) {
        let sequence = alert.sequence
        willChange(sequence)
        records.store(moved)
        if moved.presenter != alert.presenter {
            removeKeyed(sequence, .presenter(alert.presenter))
            keyedQueues[.presenter(moved.presenter), default: ArrivalQueue()].insert(sequence)
        }
        escalationCount += 1
        bumpIndex(.escalated, moved)
    }
}
