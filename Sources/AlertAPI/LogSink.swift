import Foundation
import JSON
import Locking
import SystemCalls

/// Where structured log lines go: one JSON object a line, buffered in memory and written in
/// batches every 200 ms by a thread of its own, so logging costs a request no system call and a
/// slow log reader never blocks a request thread.
public final class LogSink: Sendable {
    private let buffer = Lock<[UInt8]>([])
    private let descriptor: Int32
    private let flushing = Lock(())
    private let stopped = Lock(false)

    /// - Parameter descriptor: the file descriptor to write to (2 for standard error).
    public init(descriptor: Int32) {
        self.descriptor = descriptor
        // A thread of its own, not a task: a blocked write to a stalled log reader must not
        // hold one of Swift's cooperative threads.
        let thread = Thread { [weak self] in
            while let sink = self, !sink.stopped.withLock({ $0 }) {
                sink.flush()
                usleep(200_000)
            }
        }
        thread.name = "alertd-log"
        thread.start()
    }

    deinit {
        stopped.withLock { $0 = true }
        flush()
    }

    /// Most bytes buffered between flushes; lines beyond are dropped (not counted) rather
    /// than letting a stalled log reader grow memory without bound.
    static let bufferLimit = 8 * 1024 * 1024

    /// Appends one line (the writer's bytes and a newline). Never writes to the descriptor itself:
    /// a request thread must not block on a slow log reader.
    func write(_ line: JSONWriter) {
        buffer.withLock { buffer in
            guard buffer.count + line.count < Self.bufferLimit else { return }
            line.withUnsafeBytes { buffer.append(contentsOf: $0) }
            buffer.append(10)
        }
    }

    /// Writes out everything buffered, one flush at a time so batches never interleave.
    public func flush() {
        flushing.withLock { _ in
            let bytes = buffer.withLock { buffer -> [UInt8] in
                defer { buffer.removeAll(keepingCapacity: true) }
                return buffer
            }
            var offset = 0
            while offset < bytes.count {
                do throws(SystemCallError) {
                    let written = try retryingInterrupts("write") {
                        bytes[offset...].withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
                    }
                    if written == 0 { return }
                    offset += written
                } catch where error.wouldBlock {
                    usleep(1000)
                } catch {
                    return
                }
            }
        }
    }
}
