/// A function kept in a lock, in a class of its own.
///
/// A closure kept directly as a lock's value is wrapped in one more reabstraction thunk each time the lock hands it
/// out (Swift 6.3.1): each call then runs through every earlier wrapper, so calls grow slower and the stack deeper
/// with every use (found as 28% of a durable alertd's CPU in the journal's commit observer, docs/PERFORMANCE.md). A
/// class reference is handed out as it is.
public final class Callback<Argument>: Sendable {
    public let call: @Sendable (Argument) -> Void

    public init(_ call: @escaping @Sendable (Argument) -> Void) {
        self.call = call
    }
}
