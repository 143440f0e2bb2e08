import Locking

/// Every kept alert, by sequence number and by id, behind a mutex.
///
/// The store's actor is the only writer. Readers that need no waiting (`GET` of one alert)
/// read it directly from any thread, so a plain read costs a lock, not an actor hop and a
/// suspended connection.
final class AlertTable: Sendable {
    private struct Storage {
        /// Boxed: an `Alert` is 256 bytes, and a dictionary keeps up to twice as many slots as
        /// entries; boxes make a slot 8 bytes (about 250 MB less at 1M pending alerts).
        var records: [UInt64: Box] = [:]
        var sequences: [AlertID: UInt64] = [:]
    }

    /// One alert on the heap; replaced, never mutated.
    private final class Box: Sendable {
        let alert: Alert

        init(_ alert: Alert) {
            self.alert = alert
        }
    }

    private let storage = Lock(Storage())

    /// The alert with this sequence number.
    subscript(sequence: UInt64) -> Alert? {
        storage.withLock { $0.records[sequence]?.alert }
    }

    /// The sequence number and alert for an id.
    func record(_ id: AlertID) -> (sequence: UInt64, alert: Alert)? {
        storage.withLock { storage in
            guard let sequence = storage.sequences[id], let alert = storage.records[sequence]?.alert else {
                return nil
            }
            return (sequence, alert)
        }
    }

    /// Adds a new alert unless its id is taken, in one lookup of the id.
    /// - Returns: false, changing nothing, when another alert has the id.
    func insertNew(_ alert: Alert) -> Bool {
        storage.withLock { storage in
            if let taken = storage.sequences.updateValue(alert.sequence, forKey: alert.id) {
                storage.sequences[alert.id] = taken  // the id's alert stays as it was
                return false
            }
            storage.records[alert.sequence] = Box(alert)
            return true
        }
    }

    /// The alerts with these sequence numbers, in order, skipping any gone.
    func alerts(_ sequences: [UInt64]) -> [Alert] {
        storage.withLock { storage in sequences.compactMap { storage.records[$0]?.alert } }
    }

    /// Adds a new alert or replaces the alert with the same sequence number.
    func store(_ alert: Alert) {
        storage.withLock { storage in
            storage.records[alert.sequence] = Box(alert)
            storage.sequences[alert.id] = alert.sequence
        }
    }

    /// Forgets an alert.
    @discardableResult
    func remove(_ sequence: UInt64) -> Alert? {
        storage.withLock { storage in
            guard let alert = storage.records.removeValue(forKey: sequence)?.alert else { return nil }
            storage.sequences[alert.id] = nil
            return alert
        }
    }
}
