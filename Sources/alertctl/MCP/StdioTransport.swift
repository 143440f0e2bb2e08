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
/// withdrawn) and, once they have ended or after at most `closeGrace`, the transport returns.
struct StdioTransport {
    let server: MCPServer
    var closeGrace: Duration = .seconds(3)

    func run() async {
        let output = StandardOutput()
        let server = server
        for await line in Self.lines() {
            switch line {
            case .message(let bytes):
                output.begin()
                Task {
                    if let reply = await server.handle(bytes, emit: output.write) {
                        output.write(reply)
                    }
                    output.end()
                }
            case .tooLong:
                output.write(JSONRPC.error(JSONRPC.Failure(
                    id: nil, code: .invalidRequest,
                    message: "Invalid request: a message is at most \(JSONRPC.maxMessageBytes) bytes"
                )))
            }
        }
        // The client is gone: stop every call, and give their withdrawals a moment (not forever: alertd may be away).
        server.cancelAll()
        let deadline = ContinuousClock.now + closeGrace
        while output.handling > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
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

/// Standard output for protocol messages: each written whole, with its newline, one at a time; and how many
/// messages are being handled (whose replies are still to come).
final class StandardOutput: Sendable {
    private let lock = Lock(())
    private let active = Lock(0)

    func begin() { active.withLock { $0 += 1 } }
    func end() { active.withLock { $0 -= 1 } }
    var handling: Int { active.withLock { $0 } }

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
