import AlertModel
import Foundation

extension AlertStore {
    /// Resolves a pending alert as its cancel button (or its only button), with each field's text.
    func resolveAsCancel(
        _ sequence: UInt64, alert: Alert, resolution: Resolution, responder: String? = nil
    ) -> AlertResult {
        let resolved = Self.resolvedAsCancel(alert, resolution: resolution, responder: responder)
        settle(resolved)
        return resolved.result!
    }

    /// Records the result of a pending alert, unindexes it, bumps the change index, wakes its waiters once,
    /// and applies retention.
    ///
    /// - Parameters:
    ///   - sequence: The pending alert's sequence number.
    ///   - buttonIndex: A valid index into its buttons.
    ///   - values: One value per field.
    ///   - resolution: How it resolved.
    ///   - responder: Who resolved it, or `nil`.
    func resolve(
        _ sequence: UInt64, buttonIndex: Int, values: [String], resolution: Resolution, responder: String? = nil
    ) -> AlertResult {
        guard let alert = records[sequence], alert.result == nil else {
            preconditionFailure("resolve(\(sequence)) of an alert that is not pending")
        }
        let resolved = Self.resolved(alert, buttonIndex: buttonIndex, values: values, resolution: resolution,
                                     responder: responder)
        settle(resolved)
        return resolved.result!
    }

    /// `alert` with a result made now from the button at `buttonIndex` (a valid index) and `values`; the result
    /// lists the votes of a quorum alert so far (a dismissal or expiry keeps them on record).
    static func resolved(
        _ alert: Alert, buttonIndex: Int, values: [String], resolution: Resolution, responder: String?
    ) -> Alert {
        let button = alert.buttons[buttonIndex]
        var resolved = alert
        resolved.result = AlertResult(
            buttonIndex: button.index,
            buttonTitle: button.title,
            ok: button.style != .cancel,
            values: values,
            resolution: resolution,
            resolvedAt: .storeNow,
            responder: responder
        )
        resolved.result?.votes = alert.votes
        return resolved
    }

    /// `alert` resolved as its cancel button (or its only button), with each field's text.
    static func resolvedAsCancel(_ alert: Alert, resolution: Resolution, responder: String? = nil) -> Alert {
        resolved(alert, buttonIndex: alert.cancelButton?.index ?? 0, values: alert.fields.map(\.text),
                 resolution: resolution, responder: responder)
    }

    /// Stores a pending alert's result (`alert.result`), unindexes it, bumps the change index, wakes its waiters
    /// once, and applies retention.
    func settle(_ alert: Alert) {
        let sequence = alert.sequence
        let resolution = alert.result!.resolution
        willChange(sequence)
        records.store(alert)
        pendingQueue.remove(sequence)
        removeKeyed(sequence, .presenter(alert.presenter))
        if let owner = alert.owner { removeKeyed(sequence, .owner(owner)) }
        if alert.expiresAt != nil && resolution != .expired {
            noteStaleDeadline()
        }
        if alert.escalated.count < alert.escalation.count { noteStaleDeadline() }
        resolvedIndex.insert(sequence, at: .now)
        resolutionCounts[resolution, default: 0] += 1
        bumpIndex(AlertEvent.Kind(resolution), alert)
        journalize(.resolved(alert, event: changeIndex))
        startDelivery(of: alert)
        if let ids = resolutionWaiters.removeValue(forKey: sequence) {
            for id in ids {
                guard let waiter = waiters.removeValue(forKey: id) else { continue }
                noteStaleDeadline()
                wake(waiter, .alert(alert))
            }
        }
        while resolvedIndex.count > max(configuration.maxResolved, 0) {
            dropOldestResolved()
        }
        scheduleRetention()
    }

    /// Hands a resolved alert whose callback is not yet delivered to the webhook sender, once its resolution is
    /// durable.
    func startDelivery(of alert: Alert) {
        guard alert.delivery?.state == .pending, let observer = resolutionObserver else { return }
        afterCommit { failure in if failure == nil { observer(alert) } }
    }

    /// Takes a pending alert out of one keyed queue, dropping the queue once it is empty.
    func removeKeyed(_ sequence: UInt64, _ key: PendingKey) {
        keyedQueues[key]?.remove(sequence)
        if keyedQueues[key]?.isEmpty == true { keyedQueues[key] = nil }
    }

    /// Forgets the resolved alert resolved longest ago.
    func dropOldestResolved() {
        guard let entry = resolvedIndex.removeOldest(), records.remove(entry.sequence) != nil else { return }
        journalize(.dropped(sequence: entry.sequence))
        if let key = keysBySequence.removeValue(forKey: entry.sequence) {
            idempotencyKeys[key] = nil
        }
    }

    /// Drops every resolved alert whose retention has passed by `now`.
    func purgeRetained(now: ContinuousClock.Instant) {
        while let oldest = resolvedIndex.oldest, oldest.instant + configuration.retention <= now {
            dropOldestResolved()
        }
    }

    /// Schedules the retention deadline of the oldest resolved alert, unless one is scheduled already.
    func scheduleRetention() {
        guard retentionDeadline == nil, let oldest = resolvedIndex.oldest else { return }
        let instant = oldest.instant + configuration.retention
        retentionDeadline = instant
        schedule(Deadline(instant: instant, kind: .retention))
    }
}

extension AlertStore {
    /// Records one delivery attempt of an alert's result to its callback URL (with an authority, there too: this
    /// cache shows the delivery as this instance made it).
    ///
    /// - Parameters:
    ///   - id: The alert.
    ///   - error: Why the attempt failed, or `nil` when the receiver accepted it.
    ///   - final: Whether no more attempts will be made.
    /// - Returns: The delivery as recorded, or `nil` when the alert is gone or has no callback.
    @discardableResult
    public func recordDelivery(of id: AlertID, error: String?, final: Bool) -> WebhookDelivery? {
        defer { endTurn() }
        authority?.recordDelivery(of: id, error: error, final: final)
        guard fence?.failure == nil, let (sequence, stored) = records.record(id), var delivery = stored.delivery else {
            return nil
        }
        var alert = stored
        delivery.attempts += 1
        delivery.lastAttemptAt = .storeNow
        delivery.lastError = error
        delivery.state = error == nil ? .delivered : (final ? .failed : .pending)
        alert.delivery = delivery
        willChange(sequence)
        records.store(alert)
        journalize(.delivery(sequence: sequence, delivery))
        return delivery
    }
}
