@testable import AlertAPI
import Foundation
import MicroHTTP
import Testing

/// alertd behind a reverse proxy (`--trusted-proxy`): per-client limits count the clients the proxy
/// names, and only a trusted proxy may name them.
@Suite("Trusted reverse proxy")
struct TrustedProxyTests {
    /// One request from 127.0.0.`source` with `headers`; its response, or how the exchange failed.
    static func exchange(_ target: String, headers: String, source: UInt8, port: Int) async
        -> Result<WireResponse, WireSocket.Failure>
    {
        await WireSocket.onThread {
            Result { () throws(WireSocket.Failure) in
                let socket = try WireSocket(port: port, source: source)
                try socket.send(Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(headers)Connection: close\r\n\r\n".utf8))
                return try socket.readResponse()
            }
        }
    }

    /// A long-poll from 127.0.0.`source` left waiting; the socket holds it until hung up.
    static func hold(_ target: String, headers: String, source: UInt8, port: Int) async -> WireSocket? {
        await WireSocket.onThread { () -> WireSocket? in
            let socket = try? WireSocket(port: port, source: source)
            try? socket?.send(Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(headers)\r\n".utf8))
            return socket
        }
    }

    @Test("Waits count per forwarded client from a trusted proxy; from any other peer the headers are ignored")
    func waitsCountRealClients() async throws {
        try await LiveServer.with({
            $0.waitsPerClient = 1
            $0.http.trustedProxies = [IPNetwork("127.0.0.1")].compactMap { $0 }
        }) { server in
            let port = server.port
            let id = try await server.create(#"{"message":"wait for me"}"#)
            let poll = "/v1/alerts/\(id)/response?wait=60"
            let short = "/v1/alerts/\(id)/response?wait=1"
            // Through the proxy (127.0.0.1): client 198.51.100.1 holds its one wait.
            let viaProxy = await Self.hold(poll, headers: "X-Forwarded-For: 198.51.100.1\r\n", source: 1, port: port)
            // Straight from 127.0.0.2, not a proxy: its X-Forwarded-For names nobody.
            let direct = await Self.hold(poll, headers: "X-Forwarded-For: 203.0.113.1\r\n", source: 2, port: port)
            defer { viaProxy?.hangUp(); direct?.hangUp() }
            await server.waitForWaiters(2)

            func status(_ headers: String, from source: UInt8) async -> Int? {
                try? await Self.exchange(short, headers: headers, source: source, port: port).get().status
            }
            #expect(await status("X-Forwarded-For: 198.51.100.1\r\n", from: 1) == 429, "the same client, its limit")
            #expect(await status("X-Real-IP: 198.51.100.1\r\n", from: 1) == 429, "X-Real-IP names it too")
            #expect(await status("X-Forwarded-For: 6.6.6.6, 198.51.100.1\r\n", from: 1) == 429,
                    "an address the client wrote itself, left of the proxy's, changes nothing")
            #expect(await status("X-Forwarded-For: 198.51.100.2\r\n", from: 1) == 204, "another client behind the proxy")
            #expect(await status("X-Forwarded-For: 198.51.100.1, 127.0.0.1\r\n", from: 1) == 429,
                    "a chain of trusted proxies is skipped")
            #expect(await status("X-Forwarded-For: 203.0.113.2\r\n", from: 2) == 429,
                    "an untrusted peer is the client, whatever it forwards")
            #expect(await status("", from: 3) == 204, "another address")
        }
    }

    @Test("A trusted proxy's connections are exempt from --client-connection-limit; a client's are not")
    func connectionLimitExemptsProxy() async throws {
        try await LiveServer.with({
            $0.http.perClientConnectionLimit = 2
            $0.http.trustedProxies = [IPNetwork("127.0.0.1")].compactMap { $0 }
        }) { server in
            let port = server.port
            // Five kept-alive connections from the proxy, each answered.
            let proxyStatuses = await WireSocket.onThread { () -> [Int] in
                let sockets = (0..<5).compactMap { _ in try? WireSocket(port: port, source: 1) }
                defer { sockets.forEach { $0.hangUp() } }
                return sockets.map { socket in
                    try? socket.send(Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
                    return (try? socket.readResponse().status) ?? 0
                }
            }
            #expect(proxyStatuses == [200, 200, 200, 200, 200])
            // 127.0.0.4 holds two connections open; a third is closed unanswered.
            let (held, third) = await WireSocket.onThread { () -> ([WireSocket], WireSocket.Failure?) in
                let held = (0..<2).compactMap { _ in try? WireSocket(port: port, source: 4) }
                for socket in held {
                    try? socket.send(Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
                    _ = try? socket.readResponse()
                }
                do throws(WireSocket.Failure) {
                    let socket = try WireSocket(port: port, source: 4, timeout: 3)
                    try? socket.send(Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
                    _ = try socket.readResponse()
                    return (held, nil)
                } catch {
                    return (held, error)
                }
            }
            #expect(held.count == 2)
            #expect(third == .closed(bytes: 0) || third == .reset, "beyond the limit: \(String(describing: third))")
            // Once one closes, the address may connect again.
            await WireSocket.onThread { held[0].hangUp() }
            var status: Int?
            _ = await TestTime.until(every: .milliseconds(50)) {
                status = try? await Self.exchange("/healthz", headers: "", source: 4, port: port).get().status
                return status == 200
            }
            #expect(status == 200, "a closed connection no longer counts")
            await WireSocket.onThread { held[1].hangUp() }
        }
    }
}
