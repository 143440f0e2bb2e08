import Foundation
import Locking

#if canImport(Glibc)
import Glibc
#endif

/// Webhook receivers that accept connections and never answer, on many loopback addresses (each its own host to a
/// client), all served by one thread polling every socket. It counts the connections open to it at once.
final class SilentReceivers: Sendable {
    private struct State {
        var open: [Int32] = []
        var mostOpen = 0
        var accepted = 0
        var stopped = false
    }

    /// One URL per address.
    let urls: [String]
    private let listeners: [Int32]
    private let state = Lock(State())

    /// Listens on 127.0.0.`first` … 127.0.0.`first + count - 1`, each at an ephemeral port.
    init(addresses count: Int, first: Int = 10) throws {
        var listeners: [Int32] = []
        var urls: [String] = []
        for offset in 0..<count {
            let host = "127.0.0.\(first + offset)"
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr(host)
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
                }
            }
            guard fd >= 0, bound, listen(fd, 256) == 0 else {
                for listener in listeners + [fd] where listener >= 0 { close(listener) }
                throw RawHTTPError(description: "cannot listen on \(host): errno \(errno)")
            }
            listeners.append(fd)
            urls.append("http://\(host):\(UInt16(bigEndian: address.sin_port))/silent")
        }
        self.listeners = listeners
        self.urls = urls
        let thread = Thread { [self] in loop() }
        thread.start()
    }

    /// Connections open to the receivers now, and the most there were at once.
    var connections: (open: Int, most: Int, accepted: Int) {
        state.withLock { ($0.open.count, $0.mostOpen, $0.accepted) }
    }

    /// Closes every socket (the polling thread does, within 50 ms).
    func stop() {
        state.withLock { $0.stopped = true }
    }

    private func loop() {
        var scratch = [UInt8](repeating: 0, count: 65536)
        while true {
            let open = state.withLock { $0.stopped ? nil : $0.open }
            guard let open else { break }
            // Connections before listeners: a client that closed one connection and then opened another (a
            // delivery's time limit, then its retry) is seen closing first, so `mostOpen` counts what was open at once.
            var entries = (open + listeners).map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&entries, nfds_t(entries.count), 50) >= 0 else { continue }
            for entry in entries where entry.revents != 0 {
                if listeners.contains(entry.fd) {
                    let connection = accept(entry.fd, nil, nil)
                    guard connection >= 0 else { continue }
                    state.withLock { state in
                        state.open.append(connection)
                        state.accepted += 1
                        state.mostOpen = max(state.mostOpen, state.open.count)
                    }
                } else if scratch.withUnsafeMutableBytes({ recv(entry.fd, $0.baseAddress, $0.count, 0) }) <= 0 {
                    // The client went away (read and dropped what it sent, never answering).
                    close(entry.fd)
                    state.withLock { $0.open.removeAll { $0 == entry.fd } }
                }
            }
        }
        let open = state.withLock { $0.open }
        for fd in listeners + open { close(fd) }
    }
}
