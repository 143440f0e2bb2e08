import Foundation
import HTTPTestSupport
import MicroHTTP
import Testing

@Suite("HTTPServer over libmicrohttpd")
struct HTTPServerTests {
    @Test("port 0 binds a free port that can be read back and served")
    func ephemeralPort() async throws {
        try await withEchoServer { server in
            #expect(server.port > 0)
            let response = try await RawHTTP.exchange(RawHTTP.request("GET", "/hello?x=1&y=%20z"), port: server.port)
            #expect(response.status == 200)
            #expect(response.text == "GET /hello ?x=1&y= z body=0")
        }
    }

    @Test("a bad host is refused with a clear error")
    func badHost() {
        var configuration = HTTPServerConfiguration()
        configuration.host = "no such host.invalid"
        #expect(throws: HTTPServerError.self) { try HTTPServer(configuration: configuration, handler: EchoHandler()) }
    }

    @Test("a busy port is refused with a clear error")
    func busyPort() async throws {
        try await withEchoServer { server in
            var configuration = HTTPServerConfiguration()
            configuration.port = server.port
            let error = #expect(throws: HTTPServerError.self) {
                try HTTPServer(configuration: configuration, handler: EchoHandler())
            }
            #expect(error?.description.contains("\(server.port)") == true)
        }
    }

    @Test("the loaded libmicrohttpd's version is read at start: 0.9.75 here, and older ones are refused by name")
    func libraryVersion() throws {
        #expect(HTTPServer.libraryVersion == "0.9.75", "Debian 12's")
        #expect(HTTPServer.minimumLibraryVersion == "0.9.75")
        try HTTPServer.checkLibrary()
        for newer in ["0.9.75", "0.9.76", "0.9.100", "0.10", "1.0.0", "0.9.75.1"] {
            #expect(throws: Never.self, "\(newer)") { try HTTPServer.checkLibrary(version: newer) }
        }
        for older in ["0.9.74", "0.9.72", "0.9.9", "0.8.99", "0.9", "", "unknown"] {
            let error = #expect(throws: HTTPServerError.self, "\(older)") {
                try HTTPServer.checkLibrary(version: older)
            }
            let message = error?.description ?? ""
            #expect(message.hasPrefix("libmicrohttpd \(older) is loaded, and 0.9.75 or later is needed"), "\(message)")
        }
    }

    @Test("keep-alive connections survive immediate and deferred responses",
          arguments: ["/now", "/later?delay=1"])
    func keepAlive(target: String) async throws {
        try await withEchoServer { server in
            let requests = (0..<20).map { _ in RawHTTP.persistentRequest("GET", target) }
            let responses = try await RawHTTP.keepAlive(requests, port: server.port)
            #expect(responses.count == 20, "every request answered on the same connection")
            #expect(responses.allSatisfy { $0.status == 200 && $0.headers["connection"] == nil })
        }
    }

    @Test("request bodies are collected across reads")
    func bodyCollected() async throws {
        try await withEchoServer { server in
            let body = [UInt8](repeating: 65, count: 60_000)
            let response = try await RawHTTP.exchange(RawHTTP.request("POST", "/", body: body), port: server.port)
            #expect(response.text.hasSuffix("body=60000"))
        }
    }

    @Test("a Content-Length over the limit is refused with 413 without reading the body")
    func oversizeDeclared() async throws {
        try await withEchoServer { server in
            let head = Array("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000\r\n\r\n".utf8)
            let response = try await RawHTTP.exchange(head, port: server.port, timeout: 5)
            #expect(response.status == 413)
            #expect(response.headers["connection"] == "close")
        }
    }

    @Test("a chunked body over the limit is answered 413")
    func oversizeChunked() async throws {
        try await withEchoServer { server in
            var request = Array("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n".utf8)
            let chunk = [UInt8](repeating: 66, count: 16384)
            for _ in 0..<5 {
                request += Array("4000\r\n".utf8) + chunk + Array("\r\n".utf8)
            }
            request += Array("0\r\n\r\n".utf8)
            let response = try await RawHTTP.exchange(request, port: server.port, timeout: 5)
            #expect(response.status == 413)
        }
    }

    @Test("200 deferred requests wait concurrently on suspended connections, not threads")
    func manySuspended() async throws {
        try await withEchoServer({ $0.threads = 2 }) { server in
            let started = Date()
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<200 {
                    group.addTask {
                        try await RawHTTP.exchange(RawHTTP.request("GET", "/wait?delay=500"), port: server.port).status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.count == 200 && statuses.allSatisfy { $0 == 200 })
            // With two worker threads, blocking would take 200 × 0.5 s / 2; suspension takes ~0.5 s.
            #expect(Date().timeIntervalSince(started) < TestTime.sooner(than: 200 * 0.5 / 2))
        }
    }

    @Test("shutdown answers work that never finishes with the handler's 503, and does not crash")
    func shutdownWithSuspended() async throws {
        let server = try startTestServer()
        let port = server.port
        async let stuck = RawHTTP.exchange(RawHTTP.request("GET", "/never"), port: port, timeout: 30)
        #expect(await TestTime.until { server.suspendedRequests == 1 })
        await server.shutdown(grace: .milliseconds(200))
        let response = try await stuck
        #expect(response.status == 503)
        #expect(server.suspendedRequests == 0)
    }

    @Test("a streamed body arrives chunked, piece by piece, and ends when the producer finishes")
    func streamed() async throws {
        try await withEchoServer { server in
            let response = try await RawHTTP.exchange(RawHTTP.request("GET", "/stream?n=5"), port: server.port)
            #expect(response.status == 200)
            #expect(response.headers["transfer-encoding"] == "chunked")
            for index in 0..<5 { #expect(response.text.contains("data: \(index)\n\n")) }
            #expect(response.text.contains("data: end"))
            #expect(server.openStreams == 0)
        }
    }

    @Test("shutdown ends open streams instead of aborting on their suspended connections")
    func shutdownEndsStreams() async throws {
        let server = try startTestServer()
        async let endless = RawHTTP.exchange(RawHTTP.request("GET", "/stream?n=0"), port: server.port, timeout: 30)
        #expect(await TestTime.until { server.openStreams == 1 })
        await server.shutdown(grace: .milliseconds(200))
        #expect(try await endless.status == 200)
        #expect(server.openStreams == 0)
    }

    @Test("deferred work may answer with more deferred work, on a keep-alive connection")
    func nestedDeferred() async throws {
        try await withEchoServer { server in
            let requests = (0..<3).map { _ in RawHTTP.persistentRequest("GET", "/twice") }
            let responses = try await RawHTTP.keepAlive(requests, port: server.port, timeout: 30)
            #expect(responses.map(\.text) == ["second", "second", "second"])
            #expect(server.suspendedRequests == 0)
        }
    }

    @Test("the connection limit is set explicitly and fitted to the file limit")
    func connectionLimit() async throws {
        try await withEchoServer({ $0.connectionLimit = 5000 }) { server in
            #expect(server.connectionLimit > 1020, "libmicrohttpd's default would silently stall clients")
            #expect(server.connectionLimit <= 5000)
        }
    }
}
