import Foundation
import Synchronization

/// Where structured log lines go: one JSON object a line, buffered in memory and written in
/// batches (when 16 KiB collect, or every 200 ms), so logging costs a request no system call.
final class LogSink: Sendable {
    private let buffer = Mutex<[UInt8]>([])
    private let descriptor: Int32
    private let flusher = Mutex<Task<Void, Never>?>(nil)

    /// - Parameter descriptor: the file descriptor to write to (2 for standard error).
    init(descriptor: Int32) {
        self.descriptor = descriptor
        let task = Task.detached(priority: .utility) { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(200))
                self?.flush()
            }
        }
        flusher.withLock { $0 = task }
    }

    deinit {
        flusher.withLock { $0?.cancel() }
        flush()
    }

    /// Appends one line (the writer's bytes and a newline).
    func write(_ line: JSONWriter) {
        let full = buffer.withLock { buffer -> Bool in
            buffer.append(contentsOf: line.bytes)
            buffer.append(10)
            return buffer.count >= 16 * 1024
        }
        if full { flush() }
    }

    /// Writes out everything buffered.
    func flush() {
        let bytes = buffer.withLock { buffer -> [UInt8] in
            defer { buffer.removeAll(keepingCapacity: true) }
            return buffer
        }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if written <= 0 { return }
            offset += written
        }
    }
}
