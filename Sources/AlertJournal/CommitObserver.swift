/// The function `SQLiteJournal.observeCommits` installs, in a class of its own.
///
/// A closure kept directly as a `Mutex`'s value is wrapped in one more reabstraction thunk each time `withLock` hands
/// it out (Swift 6.3.1): each call then runs through every earlier wrapper, so calls grow slower and the stack deeper
/// with every commit. A class reference is handed out as it is.
final class CommitObserver: Sendable {
    let observe: @Sendable (JournalCommit) -> Void

    init(_ observe: @escaping @Sendable (JournalCommit) -> Void) {
        self.observe = observe
    }
}
