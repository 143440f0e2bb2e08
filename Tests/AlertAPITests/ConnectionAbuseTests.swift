@testable import AlertAPI
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Clients that send too much, too slowly, or too many at once: each gets a clear answer (or its
/// connection closed), and a well-behaved client is still served meanwhile.
///
/// Serialized: the timing tests here must not share two cores with the slowloris run.
@Suite("Connection abuse", .spawnsProcesses, .serialized)
struct ConnectionAbuseTests {
    /// The idle timeout of the servers whose cut "at the deadline" is compared with it: long, so that a loaded
    /// machine cannot be mistaken for it.
    static let idleTimeout = 60.0

    /// Sends `bytes` (as far as the server reads them) and reads one response.
    /// - Parameter head: the request is HEAD: the response has no body.
    static func answer(to bytes: [UInt8], port: Int, head: Bool = false) async throws -> WireResponse {
        let outcome = await WireSocket.onThread { () -> Result<WireResponse, WireSocket.Failure> in
            Result { () throws(WireSocket.Failure) in
                let socket = try WireSocket(port: port)
                try? socket.send(bytes)  // the server may answer and stop reading early
                return try socket.readResponse(head: head)
            }
        }
        return try outcome.get()
    }

    /// Waits until the store holds `count` waiters (every wait sent is suspended in the store).
    /// - Parameter token: a token that may read `/metrics`, when tokens are configured.
    static func get(_ target: String, headers: String = "", method: String = "GET") -> [UInt8] {
        Array("\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(headers)Connection: close\r\n\r\n".utf8)
    }

    @Test("A 100 KB URL gets 414 and a 100 KB header 431, and a close; past the configured limits they are problems")
    func headLimits() async throws {
        try await LiveServer.with { server in
            let port = server.port
            // Past libmicrohttpd's connection memory: libmicrohttpd refuses them itself, with its own page.
            let hugeURL = try await Self.answer(to: Self.get("/healthz?q=" + String(repeating: "a", count: 100_000)),
                                                port: port)
            #expect(hugeURL.status == 414 && hugeURL.headers["connection"] == "close", "\(hugeURL)")
            let hugeHeader = try await Self.answer(
                to: Self.get("/healthz", headers: "X-Big: \(String(repeating: "b", count: 100_000))\r\n"), port: port)
            #expect(hugeHeader.status == 431 && hugeHeader.headers["connection"] == "close", "\(hugeHeader)")
            // Within libmicrohttpd's memory but past --max-url-bytes / --max-header-bytes (4 KiB): alertd answers.
            let longURL = try await Self.answer(to: Self.get("/healthz?q=" + String(repeating: "a", count: 5_000)),
                                                port: port)
            _ = expectProblem(longURL, 414, type: "urn:alertd:problem:uri-too-long")
            let bigHeader = "X-Big: \(String(repeating: "v", count: 4_500))\r\n"
            let bigHeaders = try await Self.answer(to: Self.get("/healthz", headers: bigHeader), port: port)
            _ = expectProblem(bigHeaders, 431, type: "urn:alertd:problem:headers-too-large")
            try await server.expectStillServing()
        }
    }

    /// libmicrohttpd keeps each query parameter in the connection's memory: 200 of them in an 800-byte target filled
    /// it, and its own 431 said the headers were too large.
    @Test("900 query parameters in a 3.6 KB target are 414 naming the parameter limit; 64 are served")
    func manyQueryParameters() async throws {
        try await LiveServer.with { server in
            let many = "/v1/alerts?" + Array(repeating: "a=1", count: 900).joined(separator: "&")
            #expect(many.utf8.count < 4096, "within --max-url-bytes")
            let refused = try await Self.answer(to: Self.get(many), port: server.port)
            let problem = expectProblem(refused, 414, type: "urn:alertd:problem:uri-too-long")
            #expect(problem["detail"] == .string("request targets are limited to 64 query parameters"), "\(problem)")
            let fine = "/v1/alerts?limit=5&" + Array(repeating: "state=pending", count: 63).joined(separator: "&")
            #expect(try await Self.answer(to: Self.get(fine), port: server.port).status == 200)
            try await server.expectStillServing()
        }
    }

    /// Sends `head`, then `trickle` one byte every 200 ms until the server answers; returns the answer and the time.
    static func trickle(_ head: String, _ trickle: String, port: Int) async throws -> (WireResponse, Double) {
        let outcome = await WireSocket.onThread { () -> Result<(WireResponse, Double), WireSocket.Failure> in
            Result { () throws(WireSocket.Failure) in
                let socket = try WireSocket(port: port)
                let watch = Stopwatch()
                try socket.send(Array(head.utf8))
                for byte in trickle.utf8 {
                    var poll = pollfd(fd: socket.fd, events: Int16(POLLIN), revents: 0)
                    if Glibc.poll(&poll, 1, 200) > 0 { break }
                    try? socket.send([byte])
                }
                return (try socket.readResponse(), watch.seconds)
            }
        }
        return try outcome.get()
    }

    @Test("A body sent a byte at a time is cut off at --body-timeout with 408")
    func slowBody() async throws {
        try await LiveServer.with({
            $0.http.bodyTimeout = 1
            $0.http.idleTimeout = Int(Self.idleTimeout)
        }) { server in
            let body = #"{"message":"\#(String(repeating: "s", count: 200))"}"#
            let head = "POST /v1/alerts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
            let (response, seconds) = try await Self.trickle(head, body, port: server.port)
            _ = expectProblem(response, 408, type: "urn:alertd:problem:request-timeout")
            #expect(seconds < TestTime.sooner(than: Self.idleTimeout),
                    "cut at the body deadline (1 s), though bytes restart the idle timer")
            try await server.expectStillServing()
        }
    }

    @Test("Headers sent a byte at a time are cut off at --header-timeout with 408")
    func slowHead() async throws {
        try await LiveServer.with({
            $0.http.headerTimeout = 1
            $0.http.idleTimeout = Int(Self.idleTimeout)
        }) { server in
            let slow = "X-Slow: " + String(repeating: "z", count: 200)
            let line = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            let (response, seconds) = try await Self.trickle(line, slow, port: server.port)
            _ = expectProblem(response, 408, type: "urn:alertd:problem:request-timeout")
            #expect(response.json["detail"]?.stringValue?.contains("within 1 s") == true)
            #expect(seconds < TestTime.sooner(than: Self.idleTimeout),
                    "cut at the head deadline (1 s) plus at most one watchdog pass")
            try await server.expectStillServing()
        }
    }

    @Test("One client holds at most --client-wait-limit waits, HEAD included (then 429); hanging up frees each")
    func waitLimitAndHangUp() async throws {
        try await LiveServer.with({ $0.waitsPerClient = 4 }) { server in
            let port = server.port
            let id = try await server.create(#"{"message":"wait for me"}"#)
            // Every kind of long-poll: a result and an alert, with GET and HEAD, and the events long-poll.
            let waits = ["GET /v1/alerts/\(id)/response?wait=30", "HEAD /v1/alerts/\(id)/response?wait=30",
                         "HEAD /v1/alerts/\(id)?wait=30", "GET /v1/events?wait=30"]
            let holders = await WireSocket.onThread { () -> [WireSocket] in
                waits.compactMap { line in
                    let socket = try? WireSocket(port: port)
                    try? socket?.send(Array("\(line) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
                    return socket
                }
            }
            #expect(holders.count == 4)
            await server.waitForWaiters(4)

            let refused = try await server.get("/v1/alerts/\(id)/response?wait=30")
            _ = expectProblem(refused, 429, type: "urn:alertd:problem:too-many-waits")
            #expect(refused.headers["retry-after"] == "1")
            let headPoll = Self.get("/v1/alerts/\(id)?wait=5", method: "HEAD")
            let head = try await Self.answer(to: headPoll, port: port, head: true)
            #expect(head.status == 429, "a HEAD long-poll is a wait too")
            _ = expectProblem(try await server.get("/v1/events"), 429, type: "urn:alertd:problem:too-many-waits")
            let streamHead = try await Self.answer(to: Self.get("/v1/events", method: "HEAD"), port: port, head: true)
            #expect(streamHead.status == 200, "a stream's HEAD gets the head at once: not a wait")
            #expect(try await server.get("/v1/alerts/\(id)/response").status == 204, "a plain poll is not a wait")
            #expect(try await server.get("/healthz").status == 200)

            let watch = Stopwatch()
            for holder in holders { holder.hangUp() }
            // Every slot comes back, the events long-poll's too: four waits at once are all taken again.
            var statuses: [Int] = []
            _ = try await TestTime.until(every: .milliseconds(100)) {
                statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<4 {
                        group.addTask { try await server.get("/v1/alerts/\(id)/response?wait=1").status }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                return statuses == [204, 204, 204, 204]
            }
            #expect(statuses == [204, 204, 204, 204], "every slot is given back once the holders hung up")
            #expect(watch.seconds < TestTime.sooner(than: 30),
                    "slots are freed when the hang-up is noticed, not at the waits' 30 s")
            await server.waitForWaiters(0)
        }
    }

    @Test("With access tokens, waits count per token, not per address")
    func waitsPerToken() async throws {
        let (root, alice, bob) = ("root-admin-token-000004", "alice-responder-token-03", "bob-responder-token-0005")
        let tokens = try AccessTokens(parsing: "root:admin:\(root),alice:responder:\(alice),bob:responder:\(bob)",
                                      source: "test")
        try await LiveServer.with({ $0.waitsPerClient = 1; $0.tokens = tokens }) { server in
            let created = try await server.send("POST", "/v1/alerts", body: #"{"message":"wait"}"#,
                                                headers: [("Authorization", "Bearer \(root)")])
            let id = try #require(created.json["id"]?.stringValue)
            let target = "/v1/alerts/\(id)/response?wait=1"
            let port = server.port
            let holder = await WireSocket.onThread { () -> WireSocket? in
                let socket = try? WireSocket(port: port)
                let head = "GET /v1/alerts/\(id)/response?wait=30 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Authorization: Bearer \(alice)\r\n\r\n"
                try? socket?.send(Array(head.utf8))
                return socket
            }
            #expect(holder != nil)
            await server.waitForWaiters(1)
            let again = try await server.send("GET", target, headers: [("Authorization", "Bearer \(alice)")])
            #expect(again.status == 429, "alice holds her one wait")
            let bobs = try await server.send("GET", target, headers: [("Authorization", "Bearer \(bob)")])
            #expect(bobs.status == 204, "bob, from the same address, has a slot of his own")
            holder?.hangUp()
        }
    }

    @Test("A client is its token's name, else its address; IPv6 by its /64, IPv4-mapped as IPv4")
    func waitKeys() {
        let open = Caller.open
        #expect(ClientWaits.key(caller: Caller(name: "ci", role: .producer), address: "10.0.0.1") == "token:ci")
        #expect(ClientWaits.key(caller: open, address: "10.0.0.1") == "ip:10.0.0.1")
        #expect(ClientWaits.key(caller: open, address: "2001:db8:1:2:3:4:5:6") == "ip:2001:db8:1:2::/64")
        #expect(ClientWaits.key(caller: open, address: "2001:db8:1:2::9") == "ip:2001:db8:1:2::/64")
        #expect(ClientWaits.key(caller: open, address: "::ffff:192.0.2.7") == "ip:192.0.2.7")
        #expect(ClientWaits.key(caller: open, address: nil) == nil)
    }

    /// How many descriptors process `pid` has open.
    static func openFiles(of pid: pid_t) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd"))?.count ?? 0
    }

    /// Lowers the scheduling priority of every thread of process `pid` (nice 10), so that a load
    /// test does not starve the timing tests running beside it.
    static func lowerPriority(of pid: pid_t) {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        for task in tasks.compactMap({ id_t($0) }) {
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), task, 10)
        }
    }

    @Test("10,000 stalled connections (slowloris) do not keep a real client from being served",
          .enabled(if: Loopback.raiseFileLimit() >= 12_000, "needs RLIMIT_NOFILE of 12000 or more"))
    func slowloris() async throws {
        // Deadlines far off: connecting 10,024 clients on a loaded machine must not race them.
        let alertd = try await AlertdProcess.start(
            arguments: ["--access-log", "off", "--header-timeout", "3600", "--idle-timeout", "3600"])
        Self.lowerPriority(of: alertd.pid)
        let port = alertd.port
        // What alertd holds open before the attack (its listening socket, log, epoll, ...): counted below.
        let ownFiles = Self.openFiles(of: alertd.pid)
        // 9 addresses with 1,000 each and one at the per-client limit (1,024): 10,024 stalled heads.
        let attackers = await WireSocket.onThread { () -> [WireSocket] in
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)  // this thread only, on Linux
            var sockets: [WireSocket] = []
            sockets.reserveCapacity(10_100)
            let partial = Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Stall: ".utf8)
            for host in UInt8(2)...11 {
                for _ in 0..<(host == 11 ? 1024 : 1000) {
                    guard let socket = try? WireSocket(port: port, source: host, timeout: 2) else { continue }
                    try? socket.send(partial)
                    sockets.append(socket)
                }
            }
            return sockets
        }
        #expect(attackers.count == 10_024)
        // The kernel completes handshakes before alertd accepts them: wait until it holds them all
        // (one descriptor each, beyond its own), or the extra client below could be accepted ahead of some of them.
        _ = await TestTime.until(20, every: .milliseconds(50)) { Self.openFiles(of: alertd.pid) >= ownFiles + 10_024 }
        #expect(Self.openFiles(of: alertd.pid) >= ownFiles + 10_024, "alertd accepted every stalled connection")
        // One more from the address at its limit is closed as soon as it is accepted.
        let extra = await WireSocket.onThread { () -> WireSocket.Failure? in
            do throws(WireSocket.Failure) {
                let socket = try WireSocket(port: port, source: 11, timeout: 3)
                try? socket.send(Self.get("/healthz"))
                _ = try socket.readResponse()
                return nil
            } catch {
                return error
            }
        }
        #expect(extra == .closed(bytes: 0) || extra == .reset,
                "beyond --client-connection-limit: closed, not \(String(describing: extra))")

        let watch = Stopwatch()
        let health = try await RawHTTP.exchange(RawHTTP.request("GET", "/healthz"), port: port, timeout: 30)
        #expect(health.status == 200)
        let created = try await RawHTTP.exchange(
            RawHTTP.request("POST", "/v1/alerts", body: Array(#"{"message":"served"}"#.utf8)), port: port, timeout: 30)
        #expect(created.status == 201)
        #expect(watch.seconds < TestTime.bound(10), "a real client is served promptly, not held behind the stalled")

        await WireSocket.onThread { for socket in attackers { socket.hangUp() } }
        alertd.send(SIGTERM)
        #expect(try await alertd.exitStatus(timeout: 15) == 0)
    }
}
