import AlertModel
import Foundation

extension AlertStore {
    /// Rebuilds the store from a journal's image: the table, the arrival queues, the resolved alerts in resolution
    /// order, idempotency keys, the event history and the change index. Deadlines that passed while the store was
    /// down are due at once; resolved alerts whose callback is not yet delivered are handed to the sender again.
    func restore(_ image: StoreImage) {
        nextSequence = max(image.nextSequence, (image.boxes.last?.alert.sequence ?? 0) + 1)
        changeIndex = image.changeIndex
        for event in image.events { eventLog.append(event) }
        historyFloor = image.historyFloor
        for rule in image.rules { rules[rule.name] = rule }
        let wallNow = Date()
        let now = ContinuousClock.now
        /// The monotonic instant of a wall-clock date, as seen from now.
        func instant(_ date: Date) -> ContinuousClock.Instant {
            now + .milliseconds(Int64((date.timeIntervalSince(wallNow) * 1000).rounded()))
        }
        // The table is most of a restore's time (a cache miss or two an alert in each of its dictionaries), and
        // nothing here reads it before the idempotency keys: it fills on threads of its own meanwhile.
        let (table, boxes) = (records, image.boxes)
        let filling = ThreadWork { table.restore(boxes) }
        pendingQueue.reserveCapacity(image.boxes.count)
        // Each alert is read through its box, never copied out: a copy of 1M alerts is 1M × 8 retains.
        var resolved: [(resolvedAt: Date, sequence: UInt64)] = []
        for box in image.boxes {
            if let result = box.alert.result {
                resolved.append((result.resolvedAt, box.alert.sequence))
                continue
            }
            index(pending: box.alert)
            if let expiresAt = box.alert.expiresAt {
                deadlines.insert(Deadline(instant: instant(expiresAt), kind: .expiry(box.alert.sequence)))
            }
            if let due = box.alert.nextEscalationAt {
                deadlines.insert(Deadline(instant: instant(due), kind: .escalation(box.alert.sequence)))
            }
        }
        resolved.sort { ($0.resolvedAt, $0.sequence) < ($1.resolvedAt, $1.sequence) }
        for (resolvedAt, sequence) in resolved {
            resolvedIndex.insert(sequence, at: instant(resolvedAt))
        }
        filling.take()
        for (record, sequence) in image.idempotency where records[sequence] != nil {
            let key = IdempotencyScope(owner: record.owner, key: record.key)
            idempotencyKeys[key] = (record.draft, sequence)
            keysBySequence[sequence] = key
        }
        createdCount = 0
    }

    /// Starts what a restored store owes: the timer (alerts whose timeout passed while alertd was down expire at
    /// once, those whose escalation step came escalate at once, resolved alerts past retention are dropped) and the webhook deliveries not yet done (at least once:
    /// one cut short by the restart is made again). Call it once the webhook sender is connected. Does nothing
    /// more than arm the timer for a store that was not restored.
    public func resume() {
        defer { endTurn() }
        scheduleRetention()
        armTimer()
        for sequence in resolvedIndex.bySequence {
            if let alert = records[sequence] { startDelivery(of: alert) }
        }
    }
}
