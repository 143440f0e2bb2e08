import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// Turns SIGINT and SIGTERM into a callback while a full-screen program runs, so it can restore the terminal
/// before exiting (curses leaves it in cbreak, no-echo mode otherwise). `cancel()` restores the default actions.
// `@unchecked Sendable` invariant: both arrays are set in `init` and only read afterwards; Dispatch sources may be
// cancelled from any thread.
final class SignalWatcher: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]
    private let signals: [Int32]

    /// - Parameters:
    ///   - signals: The signals to catch (their default action is suspended meanwhile).
    ///   - handler: Called on a Dispatch queue for each delivery.
    init(_ signals: [Int32] = [SIGINT, SIGTERM], handler: @escaping @Sendable (Int32) -> Void) {
        self.signals = signals
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(number) }
            source.resume()
            return source
        }
    }

    /// Stops catching; the signals act as before.
    func cancel() {
        for source in sources { source.cancel() }
        for number in signals { signal(number, SIG_DFL) }
    }
}
