/// A function kept in a lock, in a class of its own.
///
/// A closure kept directly as a lock's value is wrapped in one more reabstraction thunk each time the lock hands it
/// out (Swift 6.3.1; see AlertJournal's `CommitObserver`): each call then runs through every earlier wrapper, so calls
/// grow slower and the stack deeper with every use. A class reference is handed out as it is.
final class Callback<Argument>: Sendable {
    let call: @Sendable (Argument) -> Void

    init(_ call: @escaping @Sendable (Argument) -> Void) {
        self.call = call
    }
}
