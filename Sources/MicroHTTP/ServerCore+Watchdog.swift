import CMicroHTTPD
import SystemCalls

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ServerCore {
    /// One pass of the watchdog: cuts request heads and bodies past their deadline, and ends the waits of
    /// clients that hung up. libmicrohttpd does not watch a suspended connection's socket, so
    /// without this a hung-up client's wait would hold its slot until its own deadline.
    func watch() {
        let headSeconds = tracker.headerSeconds
        tracker.sweep { overdue, client in
            let (seconds, head) = switch overdue {
            case .line: (tracker.idleSeconds + headSeconds, HTTPRequestHead(clientAddress: client))
            case .head(let path): (headSeconds, HTTPRequestHead(path: path, clientAddress: client))
            case .body(let method, let path):
                (bodyTimeout, HTTPRequestHead(method: method, path: path, clientAddress: client))
            }
            return Self.wire(respond(to: .requestTimeout(seconds: seconds), head))
        }
        // The lists are copied under the core lock and peeked at outside it: with thousands of
        // waiters the peeks take milliseconds, which libmicrohttpd's threads must not wait for.
        // Each peek happens under its connection's own lock, and only while it is suspended.
        let (suspended, streams) = state.withLock { (Array($0.suspended.values), Array($0.streams.values)) }
        for request in suspended where request.whileSuspended(Self.hungUp) {
            // Cancelled work ends its wait at once and answers; the answer finds the socket closed.
            request.cancel()
        }
        for stream in streams where stream.whileSuspended(Self.hungUp) { stream.finish() }
    }

    /// Whether the peer closed its end (or reset it). Unread bytes mean it is still there.
    static func hungUp(_ fd: Int32) -> Bool {
        guard fd >= 0 else { return false }
        var byte: UInt8 = 0
        do throws(SystemCallError) {
            return try retryingInterrupts("recv") { recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) } == 0
        } catch {
            return !error.wouldBlock
        }
    }

    /// A response as bytes on the wire, closing the connection.
    /// - Parameter chunked: the head only, of a body that would be chunked (the answer to HEAD).
    static func wire(_ response: HTTPResponse, chunked: Bool = false) -> [UInt8] {
        let reason = MHD_get_reason_phrase_for(UInt32(response.status)).map { String(cString: $0) } ?? ""
        var head = "HTTP/1.1 \(response.status) \(reason)\r\nConnection: close\r\n"
        for field in response.headers { head += "\(field.name): \(field.value)\r\n" }
        if chunked { return Array((head + "Transfer-Encoding: chunked\r\n\r\n").utf8) }
        head += "Content-Length: \(response.body.count)\r\n\r\n"
        return Array(head.utf8) + response.body
    }
}
