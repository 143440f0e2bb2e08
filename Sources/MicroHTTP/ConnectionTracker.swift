import Locking

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every open connection, for what libmicrohttpd does not do itself: a deadline on request heads
/// (its idle timeout restarts with every byte, so a client trickling a head would hold a
/// connection forever) and closing idle keep-alive connections gently at shutdown.
///
/// An entry lives from libmicrohttpd's "connection started" notification to its "closed" one,
/// which comes before libmicrohttpd closes the socket: an `fd` found here under the lock is open.
///
/// A connection the tracker gave up on (cut with a 408, or sent end-of-stream at shutdown) never
/// starts another request: `requestStarted` says so under the same lock, so a request whose head
/// completes at that very moment is closed unanswered and is never run.
final class ConnectionTracker: Sendable {
    struct Entry {
        let fd: Int32
        /// The client's IP address as text.
        let client: String?
        /// When the connection last went idle: accepted, or its previous request completed.
        var idleSince: ContinuousClock.Instant
        /// When the request line of the request now arriving was read.
        var headStarted: ContinuousClock.Instant?
        /// From the first handler call (head complete) to the request's completion.
        var busy = false
        /// Answered 408 and shut down by `sweep`, or sent end-of-stream at shutdown: no request
        /// may start on it any more.
        var givenUp = false
    }

    /// Whether a request whose head is complete may run.
    enum Start: Equatable {
        /// It may; the client's address.
        case accepted(client: String?)
        /// The connection was given up on: close it without running the request.
        case refused
    }

    private let entries = Lock([Int: Entry]())
    private let ids = Lock(0)
    let idleSeconds: Int
    let headerSeconds: Int

    init(idleTimeout: Int, headerTimeout: Int) {
        idleSeconds = idleTimeout
        headerSeconds = headerTimeout
    }

    /// Registers a connection just accepted; returns its id (never 0).
    func opened(fd: Int32, client: String?) -> Int {
        let id = ids.withLock { next in
            next += 1
            return next
        }
        entries.withLock { $0[id] = Entry(fd: fd, client: client, idleSince: .now) }
        return id
    }

    func closed(_ id: Int) {
        entries.withLock { _ = $0.removeValue(forKey: id) }
    }

    /// The request line is in: the head's deadline starts.
    func headStarted(_ id: Int) {
        entries.withLock { $0[id]?.headStarted = .now }
    }

    /// The head is complete and the handler has the request: from now on `sweep` and
    /// `finishIdle` leave the connection alone, unless they gave up on it already.
    func requestStarted(_ id: Int) -> Start {
        entries.withLock { entries in
            guard let entry = entries[id] else { return .accepted(client: nil) }
            if entry.givenUp { return .refused }
            entries[id]?.busy = true
            return .accepted(client: entry.client)
        }
    }

    /// The response was sent (or the request aborted): the connection is idle again.
    func requestCompleted(_ id: Int) {
        entries.withLock { entries in
            guard entries[id] != nil else { return }
            entries[id]?.busy = false
            entries[id]?.headStarted = nil
            entries[id]?.idleSince = .now
        }
    }

    /// Answers 408 and shuts down every connection whose request head is overdue. libmicrohttpd
    /// is not writing to such a connection (no request has reached the handler), so the bytes go
    /// out whole; it then reads the end of the stream and closes it.
    /// - Parameters:
    ///   - headTimeout: the answer when the request line came `headerSeconds` ago.
    ///   - lineTimeout: the answer when the request line itself is still trickling in,
    ///     `idleSeconds + headerSeconds` after the connection went idle.
    /// - Returns: how many connections were cut.
    @discardableResult
    func sweep(headTimeout: [UInt8], lineTimeout: [UInt8]) -> Int {
        let now = ContinuousClock.now
        return entries.withLock { entries in
            var cut = 0
            for (id, entry) in entries where !entry.busy && !entry.givenUp {
                let deadline = entry.headStarted.map { $0 + .seconds(headerSeconds) }
                    ?? entry.idleSince + .seconds(idleSeconds + headerSeconds)
                guard now > deadline else { continue }
                let answer = entry.headStarted == nil ? lineTimeout : headTimeout
                _ = answer.withUnsafeBytes {
                    send(entry.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                }
                shutdown(entry.fd, Int32(SHUT_RDWR))
                entries[id]?.givenUp = true
                cut += 1
            }
            return cut
        }
    }

    /// At shutdown: sends end-of-stream on every idle connection (no request in progress), so
    /// keep-alive clients see the close before they send another request. Reading stays open:
    /// a request already on its way is read (and closed unanswered, never run), not answered
    /// with a reset.
    func finishIdle() {
        entries.withLock { entries in
            for (id, entry) in entries where !entry.busy && !entry.givenUp && entry.headStarted == nil {
                shutdown(entry.fd, Int32(SHUT_WR))
                entries[id]?.givenUp = true
            }
        }
    }

    /// Just before libmicrohttpd stops: no request may start any more, on any connection.
    func refuseAll() {
        entries.withLock { entries in
            for id in entries.keys { entries[id]?.givenUp = true }
        }
    }

    /// Connections given up on and not busy that are still open: their clients have not closed
    /// them yet.
    var lingering: Int {
        entries.withLock { entries in entries.values.count { $0.givenUp && !$0.busy } }
    }
}
