import Foundation
import HTTPTestSupport
import Locking

/// A webhook receiver on 127.0.0.1: it answers every POST 200 and records the bodies that came. While `stalling`, it
/// reads a POST and never answers it (the connection stays open): a delivery in flight that has not arrived.
final class CallbackReceiver: Sendable {
    private final class Received: Sendable {
        let bodies = Lock<[String]>([])
        let stalling = Lock(false)
        /// The bodies of the POSTs held unanswered, and their connections.
        let stalled = Lock<[(body: String, descriptor: Int32)]>([])
    }

    let port: Int
    private let listener: Int32
    private let received = Received()

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 64) == 0
                    && getsockname(listener, pointer, &length) == 0
            }
        }
        guard bound else { throw RawHTTPError(description: "receiver: errno \(errno)") }
        port = Int(UInt16(bigEndian: address.sin_port))
        let received = received
        Thread {
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }
                var request: [UInt8] = []
                var held = false
                var buffer = [UInt8](repeating: 0, count: 65536)
                while true {
                    let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
                    guard count > 0 else { break }
                    request += buffer[0..<count]
                    let text = String(decoding: request, as: UTF8.self)
                    guard let head = text.range(of: "\r\n\r\n") else { continue }
                    let length = text[..<head.lowerBound].split(separator: "\r\n")
                        .first { $0.lowercased().hasPrefix("content-length:") }
                        .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                    if text.utf8.count - text.utf8.distance(from: text.startIndex, to: head.upperBound) >= length {
                        let body = String(text[head.upperBound...])
                        if received.stalling.withLock({ $0 }) {
                            received.stalled.withLock { $0.append((body, client)) }
                            held = true
                        } else {
                            received.bodies.withLock { $0.append(body) }
                        }
                        break
                    }
                }
                if held { continue }  // left open, unanswered, until stop()
                let reply = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                _ = Array(reply.utf8).withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                close(client)
            }
        }.start()
    }

    /// The bodies received (and answered) so far.
    var bodies: [String] { received.bodies.withLock { $0 } }

    /// Whether POSTs are held unanswered from now on.
    var stalling: Bool {
        get { received.stalling.withLock { $0 } }
        set { received.stalling.withLock { $0 = newValue } }
    }

    /// The bodies of the POSTs held unanswered so far.
    var stalledBodies: [String] { received.stalled.withLock { $0.map(\.body) } }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for held in received.stalled.withLock({ $0 }) { close(held.descriptor) }
    }
}
