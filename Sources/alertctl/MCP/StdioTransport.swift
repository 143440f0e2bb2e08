import AlertMCP
import Foundation
import JSON
import Locking
import SystemCalls

/// MCP's stdio transport: newline-delimited JSON-RPC on standard input and output. Only protocol messages go to
/// standard output (one a line, written whole under a lock); logs go to standard error.
///
/// Each message is handled in a task of its own, so a waiting `ask` holds up neither a `ping` nor the
/// `notifications/cancelled` that stops it. At the end of input every call in flight is cancelled (their alerts
/// withdrawn) and, after at most `closeGrace`, the transport returns.
struct StdioTransport {
    let server: MCPServer
    var closeGrace: Duration = .seconds(3)

    func run() async {
        let output = StandardOutput()
        let lines = Self.lines()
        await withTaskGroup(of: Void.self) { group in
            for await line in lines {
                switch line {
                case .message(let bytes):
                    group.addTask {
                        if let reply = await server.handle(bytes, emit: output.write) {
                            output.write(reply)
                        }
                    }
                case .tooLong:
                    output.write(JSONRPC.error(JSONRPC.Failure(
                        id: nil, code: .invalidRequest,
                        message: "Invalid request: a message is at most \(JSONRPC.maxMessageBytes) bytes"
                    )))
                }
            }
            server.cancelAll()
            let grace = closeGrace
            group.addTask {
                try? await Task.sleep(for: grace)
            }
            // The first child to finish after the cancel is either the grace period or the last call's withdrawal.
            while server.callsInFlight > 0, await group.next() != nil {}
            group.cancelAll()
        }
    }

    enum Line: Sendable {
        case message([UInt8])
        case tooLong
    }

    /// Standard input split at newlines (a `\r` before one dropped, blank lines skipped), read on a thread of its
    /// own: a blocking `read` there holds no thread of Swift's pool.
    static func lines() -> AsyncStream<Line> {
        let (stream, continuation) = AsyncStream.makeStream(of: Line.self)
        let thread = Thread {
            var pending: [UInt8] = []
            var skipping = false
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = (try? buffer.withUnsafeMutableBytes { bytes throws(SystemCallError) in
                    try retryingInterrupts("read") { read(0, bytes.baseAddress, bytes.count) }
                }) ?? 0
                guard count > 0 else { break }
                for byte in buffer[..<count] {
                    if byte == UInt8(ascii: "\n") {
                        if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
                        if !skipping, !pending.isEmpty { continuation.yield(.message(pending)) }
                        pending.removeAll(keepingCapacity: true)
                        skipping = false
                    } else if !skipping {
                        pending.append(byte)
                        if pending.count > JSONRPC.maxMessageBytes {
                            continuation.yield(.tooLong)
                            pending.removeAll()
                            skipping = true
                        }
                    }
                }
            }
            if !skipping, !pending.isEmpty { continuation.yield(.message(pending)) }
            continuation.finish()
        }
        thread.start()
        return stream
    }
}

/// Standard output for protocol messages: each written whole, with its newline, one at a time.
final class StandardOutput: Sendable {
    private let lock = Lock(())

    func write(_ message: [UInt8]) {
        lock.withLock { _ in
            var bytes = message
            bytes.append(UInt8(ascii: "\n"))
            var offset = 0
            while offset < bytes.count {
                // A closed standard output (the client went away) ends the writing; the end of input ends the rest.
                guard let written = try? bytes[offset...].withUnsafeBytes({ chunk throws(SystemCallError) in
                    try retryingInterrupts("write") { Foundation.write(1, chunk.baseAddress, chunk.count) }
                }), written > 0 else { return }
                offset += written
            }
        }
    }
}
