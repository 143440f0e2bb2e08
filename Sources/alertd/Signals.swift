import Dispatch
import Foundation

/// Turns POSIX signals into an awaitable event.
enum Signals {
    /// Suspends until one of `signals` arrives; returns it. The default actions of those
    /// signals are disabled so the process can shut down gracefully.
    static func first(of signals: [Int32]) async -> Int32 {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        let sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
        defer { sources.forEach { $0.cancel() } }
        for await number in stream { return number }
        return signals[0]
    }
}
