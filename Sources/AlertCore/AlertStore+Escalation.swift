import AlertModel
import Foundation

/// Escalation: a pending alert takes its next step when the step's time since creation comes (`EscalationStep`).
extension AlertStore {
    /// Schedules the next escalation step of a pending alert, if it has one left.
    func scheduleEscalation(of alert: Alert) {
        guard let due = alert.nextEscalationAt else { return }
        schedule(Deadline(instant: .now + .milliseconds(max(due.timeIntervalSinceNow, 0) * 1000), kind: .escalation(alert.sequence)))
    }

    /// Takes the next escalation step of the pending alert `sequence` once its wall-clock time came (else waits for
    /// it): moves it to the step's presenter's queue, widens who may answer, makes its `escalated` event, journals
    /// it, and schedules the step after.
    func escalate(_ sequence: UInt64) {
        guard let alert = records[sequence], let due = alert.nextEscalationAt else { return }
        let early = due.timeIntervalSinceNow
        guard early <= 0 else {
            schedule(Deadline(instant: .now + .milliseconds(early * 1000 + 1), kind: .escalation(sequence)))
            return
        }
        guard let moved = alert.escalated(at: .storeNow, event: changeIndex + 1) else { return }
        willChange(sequence)
        records.store(moved)
        if moved.presenter != alert.presenter {
            removeKeyed(sequence, .presenter(alert.presenter))
            keyedQueues[.presenter(moved.presenter), default: ArrivalQueue()].insert(sequence)
        }
        escalationCount += 1
        bumpIndex(.escalated, moved)
        journalize(.escalated(moved, event: changeIndex))
        scheduleEscalation(of: moved)
    }
}
