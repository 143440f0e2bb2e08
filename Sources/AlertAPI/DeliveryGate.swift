import Locking

/// Bounds webhook connections: at most `total` at once, and at most `perDestination` to one callback URL, so that the
/// process keeps descriptors for serving and one slow URL cannot hold every slot. Waiters are let in first come, first
/// served among those whose URL has room; time spent waiting is not part of an attempt's time-out.
final class DeliveryGate: Sendable {
    private struct Waiter {
        let id: UInt64
        let key: String
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var inUse = 0
        var byKey: [String: Int] = [:]
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0

        func fits(_ key: String, total: Int, perDestination: Int) -> Bool {
            inUse < total && byKey[key, default: 0] < perDestination
        }

        mutating func take(_ key: String) {
            inUse += 1
            byKey[key, default: 0] += 1
        }
    }

    /// Most connections at once.
    let total: Int
    /// Most connections to one callback URL at once.
    let perDestination: Int
    private let state = Lock(State())

    init(total: Int, perDestination: Int) {
        self.total = max(1, total)
        self.perDestination = max(1, perDestination)
    }

    /// Connections in use now.
    var inUse: Int {
        state.withLock { $0.inUse }
    }

    /// Waits for a slot for a connection to `key`; every `true` must be matched by one `leave(key)`.
    /// - Returns: false, holding no slot, when the task is cancelled first.
    func enter(_ key: String) async -> Bool {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now: Bool? = state.withLock { state in
                    // Checked under the lock: `onCancel` either ran before (the flag is set) or will find the waiter.
                    if Task.isCancelled { return false }
                    // Waiters left in the queue do not fit (`leave` lets one in whenever one does): this may pass them.
                    if state.fits(key, total: total, perDestination: perDestination) {
                        state.take(key)
                        return true
                    }
                    state.waiters.append(Waiter(id: id, key: key, continuation: continuation))
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0) }
            }
            waiter?.continuation.resume(returning: false)
        }
    }

    /// Gives back a slot taken for `key`, letting in the first waiter that now fits.
    func leave(_ key: String) {
        let next = state.withLock { state -> Waiter? in
            state.inUse -= 1
            let left = state.byKey[key, default: 1] - 1
            state.byKey[key] = left > 0 ? left : nil
            guard let index = state.waiters.firstIndex(where: {
                state.fits($0.key, total: total, perDestination: perDestination)
            }) else { return nil }
            let waiter = state.waiters.remove(at: index)
            state.take(waiter.key)
            return waiter
        }
        next?.continuation.resume(returning: true)
    }
}
