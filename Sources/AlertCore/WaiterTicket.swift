import AlertModel

/// Names a wait registered with `AlertStore.whenResolved` or `whenChanged`, to end it early with `cancelWaiter`.
public struct WaiterTicket: Sendable, Hashable {
    /// The waiter's id in the store; 0 for a wait that was answered at once and so was never registered.
    let id: UInt64

    /// A wait answered at once: cancelling it does nothing.
    static let answered = WaiterTicket(id: 0)
}
