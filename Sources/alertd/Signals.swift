import Dispatch
import Foundation

/// Turns POSIX signals into an awaitable event.
///
/// Create it before announcing readiness: from then on the signals' default actions are off and any of them
/// that arrives is kept, so a supervisor that sends SIGTERM right after the "listening" line still gets a
/// graceful stop.
final class Signals {
    private let sources: [any DispatchSourceSignal]
    private let stream: AsyncStream<Int32>
    private let fallback: Int32

    /// Starts watching `signals`.
    init(_ signals: [Int32]) {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        self.stream = stream
        fallback = signals[0]
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
    }

    deinit {
        sources.forEach { $0.cancel() }
    }

    /// Suspends until one of the signals has arrived (perhaps already); returns it. Each call returns the next
    /// signal, in the order they arrived.
    func next() async -> Int32 {
        for await number in stream { return number }
        return fallback
    }
}
