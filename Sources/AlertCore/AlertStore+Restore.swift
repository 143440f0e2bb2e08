import Foundation

extension AlertStore {
    /// Rebuilds the store from a journal's image: the table, the arrival queues, the resolved alerts in resolution
    /// order, idempotency keys, the event history and the change index. Deadlines that passed while the store was
    /// down are due at once; resolved alerts whose callback is not yet delivered are handed to the sender again.
    func restore(_ image: StoreImage) {
        nextSequence = max(image.nextSequence, (image.alerts.last?.sequence ?? 0) + 1)
        changeIndex = image.changeIndex
        for event in image.events { eventLog.append(event) }
        let wallNow = Date()
        let now = ContinuousClock.now
        /// The monotonic instant of a wall-clock date, as seen from now.
        func instant(_ date: Date) -> ContinuousClock.Instant {
            now + .milliseconds(Int64((date.timeIntervalSince(wallNow) * 1000).rounded()))
        }
        var resolved: [Alert] = []
        for alert in image.alerts {
            _ = records.insertNew(alert)
            if alert.result != nil {
                resolved.append(alert)
                continue
            }
            index(pending: alert)
            if let expiresAt = alert.expiresAt {
                deadlines.insert(Deadline(instant: instant(expiresAt), kind: .expiry(alert.sequence)))
            }
        }
        resolved.sort { ($0.result!.resolvedAt, $0.sequence) < ($1.result!.resolvedAt, $1.sequence) }
        for alert in resolved {
            resolvedIndex.insert(alert.sequence, at: instant(alert.result!.resolvedAt))
            if alert.delivery?.state == .pending, let observer = resolutionObserver {
                afterCommit { failure in if failure == nil { observer(alert) } }
            }
        }
        for (record, sequence) in image.idempotency where records[sequence] != nil {
            let key = IdempotencyScope(owner: record.owner, key: record.key)
            idempotencyKeys[key] = (record.draft, sequence)
            keysBySequence[sequence] = key
        }
        createdCount = 0
        scheduleRetention()
        armTimer()
    }
}
