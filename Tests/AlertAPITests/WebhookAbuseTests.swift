@testable import AlertAPI
import Foundation
import HTTPTestSupport
import JSON
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Webhooks under abuse: many resolutions, receivers that never answer or answer with too much, a hanging URL next to
/// a healthy one, IPv6, and callbacks that are not valid URLs or carry credentials. The receivers are the test's own,
/// on loopback; some tests run a real `alertd` process, to watch its descriptors and memory.
@Suite("Webhook abuse", .spawnsProcesses)
struct WebhookAbuseTests {
    @Test("20,000 resolutions of alerts with a callback: alertd still answers, as fast as at the start")
    func manyResolutions() async throws {
        let receivers = try SilentReceivers(addresses: 1, first: 3)
        defer { receivers.stop() }
        let process = try await AlertdProcess.start(arguments: ["--access-log", "off", "--webhook-allow", "loopback"])
        defer { process.send(SIGKILL) }
        let client = try KeepAliveClient(port: process.port)
        let create = RawHTTP.persistentRequest(
            "POST", "/v1/alerts", body: Array(#"{"title":"t","callback":"\#(receivers.urls[0])"}"#.utf8))
        let (first, last) = try await client.onThread {
            /// One create and its dismissal, not pipelined; how long the two took, in seconds.
            func round() throws -> Double {
                let began = ContinuousClock.now
                try resolve(1)
                return (ContinuousClock.now - began).seconds
            }
            /// Creates `count` alerts, then dismisses them, each batch pipelined.
            func resolve(_ count: Int) throws {
                try client.write(Array(Array(repeating: create, count: count).joined()))
                let ids = try (0..<count).map { _ in
                    let created = try client.readResponse()
                    guard created.status == 201, let id = created.json["id"]?.stringValue else {
                        throw RawHTTPError(description: "create: \(created.status) \(created.text)")
                    }
                    return id
                }
                try client.write(Array(ids.map { RawHTTP.persistentRequest("DELETE", "/v1/alerts/\($0)") }.joined()))
                for _ in ids {
                    let dismissed = try client.readResponse()
                    guard dismissed.status == 200 else {
                        throw RawHTTPError(description: "dismiss: \(dismissed.status) \(dismissed.text)")
                    }
                }
            }
            try resolve(20)  // warm up
            let first = try (0..<200).map { _ in try round() }
            for _ in 0..<195 { try resolve(100) }
            let last = try (0..<200).map { _ in try round() }
            return (first, last)
        }
        client.hangUp()
        let health = try await RawHTTP.exchange(RawHTTP.request("GET", "/healthz"), port: process.port, timeout: 10)
        #expect(health.status == 200)
        let (before, after) = (Self.median(first), Self.median(last))
        #expect(after <= before * 3 + 0.002,
                "a create and dismissal took \(after * 1000) ms at the end, \(before * 1000) ms at the start")
    }

    @Test("Receivers that never answer, on 40 loopback addresses: webhook connections stay bounded, clients are served")
    func silentReceiversOnManyHosts() async throws {
        let receivers = try SilentReceivers(addresses: 40)
        defer { receivers.stop() }
        // With 256 descriptors alertd allows itself 256 / 16 = 16 webhook connections.
        let process = try await AlertdProcess.start(arguments: ["--access-log", "off", "--webhook-allow", "loopback"],
                                                  fileLimit: 256)
        defer { process.send(SIGKILL) }
        // 16 deliveries per address: enough to take 640 descriptors with a limit per host alone.
        let creates = (0..<640).map { index in
            RawHTTP.persistentRequest("POST", "/v1/alerts", body: Array(
                #"{"title":"t","callback":"\#(receivers.urls[index % receivers.urls.count])?n=\#(index)"}"#.utf8))
        }
        let created = try await RawHTTP.keepAlive(creates, port: process.port)
        let ids = created.compactMap { $0.json["id"]?.stringValue }
        try #require(ids.count == 640)
        let dismissals = try await RawHTTP.keepAlive(
            ids.map { RawHTTP.persistentRequest("DELETE", "/v1/alerts/\($0)") }, port: process.port)
        #expect(dismissals.allSatisfy { $0.status == 200 })
        _ = await TestTime.until(every: .milliseconds(20)) { receivers.connections.most >= 16 }
        #expect(receivers.connections.most == 16, "\(receivers.connections)")
        // New clients, one connection each, while every webhook slot is held.
        for _ in 0..<40 {
            let health = try await RawHTTP.exchange(RawHTTP.request("GET", "/healthz"), port: process.port,
                                                    timeout: TestTime.bound(5))
            #expect(health.status == 200)
        }
        let list = try await RawHTTP.exchange(RawHTTP.request("GET", "/v1/alerts?state=resolved&limit=1"),
                                              port: process.port, timeout: TestTime.bound(5))
        #expect(list.status == 200)
        #expect(receivers.connections.most <= 16, "\(receivers.connections)")
    }

    @Test("A gzip bomb, an endless body and a head that never ends: memory stays flat, attempts end in time")
    func hostileAnswers() async throws {
        let bomb = Self.gzipOfZeros(128 << 20)
        let bombAnswer = Array("""
            HTTP/1.1 200 OK\r
            Content-Type: application/json\r
            Content-Encoding: gzip\r
            Content-Length: \(bomb.count)\r
            \r

            """.utf8) + bomb
        let receiver = try WebhookReceiver { request in
            switch request.target {
            case "/bomb": .bytes(bombAnswer)
            case "/endless": .endless
            case "/trickle": .trickle
            default: .scripted
            }
        }
        defer { receiver.stop() }
        let process = try await AlertdProcess.start(arguments: ["--access-log", "off", "--webhook-allow", "loopback"])
        defer { process.send(SIGKILL) }
        var ids: [String: String] = [:]
        for path in ["/bomb", "/endless", "/trickle"] {
            let response = try await Self.send(process, "POST", "/v1/alerts",
                                               #"{"title":"t","callback":"\#(receiver.url(path))"}"#)
            ids[path] = try #require(response.json["id"]?.stringValue)
        }
        let before = try #require(process.memory("VmHWM"))
        let dismissedAt = ContinuousClock.now
        for id in ids.values { #expect(try await Self.send(process, "DELETE", "/v1/alerts/\(id)").status == 200) }

        for path in ["/bomb", "/endless"] {
            let webhook = try await Self.watch(process, try #require(ids[path]), timeout: 30) {
                $0["state"] == .string("delivered")
            }
            #expect(webhook["state"] == .string("delivered"), "\(path): \(webhook)")
            #expect(webhook["attempts"]?.int64Value == 1, "\(path): \(webhook)")
        }
        // The attempt's 10 s limit holds however the receiver trickles.
        let trickled = try await Self.watch(process, try #require(ids["/trickle"]), timeout: 30) {
            ($0["attempts"]?.int64Value ?? 0) >= 1
        }
        if trickled["lastError"]?.stringValue != "not delivered: no answer from the receiver" {
            // Seen once in a full `make tsan` run (attempts 0 after 120 s), never when run again: say whether the
            // request reached the receiver and which attempts alertd counted, to tell where it stopped.
            let metrics = (try? await Self.send(process, "GET", "/metrics").text) ?? ""
            let counted = metrics.split(separator: "\n").filter { $0.hasPrefix("alertd_webhook_deliveries_total{") }
            let received = receiver.requests.map(\.target)
            Issue.record("the trickle did not time out: \(trickled); received \(received); counted \(counted)")
        }
        #expect((ContinuousClock.now - dismissedAt).seconds < 10 + TestTime.bound(10), "the trickle was cut")
        let after = try #require(process.memory("VmHWM"))
        // 32 MiB: a quarter of what the bomb inflates to; the endless body streams far more within the 10 s.
        let bound = 32 * 1024 + (Self.addressSanitized ? 48 * 1024 : 0)
        #expect(after - before < bound, "peak resident memory grew from \(before) kB to \(after) kB")
        let requests = receiver.requests
        #expect(requests.allSatisfy { $0.headers["accept-encoding"] == "identity" }, "\(requests.map(\.headers))")
    }

    @Test("100 deliveries hanging on one URL do not hold up another URL on the same receiver")
    func hangingURLDoesNotStarveAnother() async throws {
        let receiver = try WebhookReceiver { $0.target == "/hang" ? .never : .scripted }
        defer { receiver.stop() }
        try await LiveServer.with({ $0.webhooks = .loopback }) { server in
            var hanging: [String] = []
            for _ in 0..<100 {
                hanging.append(try await server.create(#"{"title":"h","callback":"\#(receiver.url("/hang"))"}"#))
            }
            let healthy = try await server.create(#"{"title":"ok","callback":"\#(receiver.url("/ok"))"}"#)
            for id in hanging { _ = try await server.delete("/v1/alerts/\(id)") }
            let held = try await receiver.waitForRequests(8)
            #expect(held.count >= 8 && held.allSatisfy { $0.target == "/hang" })
            _ = try await server.delete("/v1/alerts/\(healthy)")
            // Sooner than a hanging attempt's 10 s time limit, which would free a slot it waited for.
            let seen = try await server.watchWebhook(healthy, timeout: TestTime.sooner(than: 10)) {
                $0["state"] == .string("delivered")
            }
            #expect(seen.last?["state"] == .string("delivered"), "\(seen)")
            #expect(seen.last?["attempts"]?.int64Value == 1, "\(seen)")
        }
    }

    @Test("An IPv6 callback is delivered")
    func ipv6Delivered() async throws {
        let receiver = try WebhookReceiver(host: "::1")
        defer { receiver.stop() }
        try await LiveServer.with({ $0.webhooks = .loopback }) { server in
            let callback = receiver.url("/v6?source=test")
            #expect(callback.hasPrefix("http://[::1]:"))
            let id = try await server.create(#"{"title":"six","callback":"\#(callback)"}"#)
            _ = try await server.delete("/v1/alerts/\(id)")
            let seen = try await server.watchWebhook(id) { $0["state"] == .string("delivered") }
            #expect(seen.last?["state"] == .string("delivered"), "\(seen)")
            let request = try #require(receiver.requests.first)
            #expect(request.target == "/v6?source=test")
            #expect(request.headers["host"] == "[::1]:\(receiver.port)")
            #expect(request.json["id"] == .string(id))
        }
    }

    @Test("Callbacks that are not valid URLs, or that alertd cannot deliver, are 422 at /callback", arguments: [
        "http://127.0.0.1:99999/x", "http://127.0.0.1:0/x", "http://127.0.0.1:80a/x", "http://127.0.0.1/a b",
        "http://127.0.0.1/x\r\nX-Injected: 1", "http://127.0.0.1/x\n", "http://127.0.0.1/\u{e9}",
        "http://127.0.0.1/<x>", "http://127.0.0.1/%zz", "http://127.0.0.1/x#part", "http://a@b@127.0.0.1/",
        "http://[::1/x", "http://[fe80::1%25lo]/x", "https://[::1]:9/x", "http://127.1/x",
        "http://127.0.0.1/" + String(repeating: "a", count: 2100),
    ])
    func invalidRefused(callback: String) async throws {
        try await LiveServer.with({ $0.webhooks = .loopback }) { server in
            let response = try await server.post("/v1/alerts", #"{"title":"x","callback":\#(jsonString(callback))}"#)
            let problem = expectProblem(response, 422, pointer: "/callback",
                                        type: "urn:alertd:problem:validation-failed")
            #expect(!errorDetail(problem, at: "/callback").isEmpty)
            #expect(try await server.listIDs().isEmpty)
        }
    }

    @Test("A callback's user information and query are shown to its owner only: not to responders, lists or events")
    func credentialsShownToOwnerOnly() async throws {
        let callback = "http://hook:PASSWORD@127.0.0.1:9/x?sig=SECRET"
        let shown = "http://127.0.0.1:9/x"
        try await AccessControlTests.withTokens({ $0.webhooks = .loopback }) { server in
            let events = try SSEClient(port: server.port, target: "/v1/events",
                                       headers: [("Authorization", "Bearer \(AccessControlTests.alice)")])
            defer { events.disconnect() }
            _ = try await events.expectStreamStart()
            let created = try await server.send("POST", "/v1/alerts", body: #"{"title":"c","callback":"\#(callback)"}"#,
                                                as: AccessControlTests.ci)
            #expect(created.json["webhook"]?["url"] == .string(callback), "the owner sees what it gave")
            let id = try #require(created.json["id"]?.stringValue)
            for (token, url) in [(AccessControlTests.ci, callback), (AccessControlTests.root, callback),
                                 (AccessControlTests.alice, shown)] {
                let alert = try await server.send("GET", "/v1/alerts/\(id)", as: token)
                #expect(alert.json["webhook"]?["url"] == .string(url), "\(token)")
                let list = try await server.send("GET", "/v1/alerts", as: token)
                #expect(list.status == 200 && !list.text.contains("PASSWORD") && !list.text.contains("SECRET"))
                #expect(list.text.contains(shown))
            }
            let message = try #require(await events.nextMessage())
            #expect(message.data.contains(id) && message.data.contains(shown))
            #expect(!message.data.contains("PASSWORD") && !message.data.contains("SECRET"), "\(message)")
        }
        // Open mode: every request is the admin, so a single alert shows the whole URL; lists and events do not.
        try await LiveServer.with({ $0.webhooks = .loopback }) { server in
            let id = try await server.create(#"{"title":"c","callback":"\#(callback)"}"#)
            #expect(try await server.alert(id).json["webhook"]?["url"] == .string(callback))
            let list = try await server.get("/v1/alerts")
            #expect(list.text.contains(shown) && !list.text.contains("PASSWORD") && !list.text.contains("SECRET"))
        }
    }

    // MARK: helpers

    private static func median(_ values: [Double]) -> Double {
        values.sorted()[values.count / 2]
    }

    private static func send(_ process: AlertdProcess, _ method: String, _ target: String,
                             _ body: String? = nil) async throws -> WireResponse {
        try await RawHTTP.exchange(RawHTTP.request(method, target, body: body.map { Array($0.utf8) }),
                                   port: process.port, timeout: 10)
    }

    /// Polls the alert's `webhook` in a spawned alertd until `done` holds (or `timeout` seconds, stretched by
    /// `TestTime`, pass); returns the last seen.
    private static func watch(_ process: AlertdProcess, _ id: String, timeout: Double,
                              until done: (JSONValue) -> Bool) async throws -> JSONValue {
        var webhook = JSONValue.null
        _ = try await TestTime.until(timeout, every: .milliseconds(50)) {
            webhook = try await send(process, "GET", "/v1/alerts/\(id)").json["webhook"] ?? .null
            return done(webhook)
        }
        return webhook
    }

    /// Whether this test process, and so the alertd it spawns from the same build, runs under AddressSanitizer
    /// (`make asan`). There every thread that runs instrumented code gets a fake stack of its own for
    /// stack-use-after-return checks: three attempts at once, each on its thread, raised alertd's peak by 38 MB
    /// (measured; within the plain bound with `ASAN_OPTIONS=detect_stack_use_after_return=0`), no answer byte kept.
    /// With 48 MiB more the bound is still below the 128 MiB the bomb inflates to.
    static let addressSanitized = dlsym(dlopen(nil, RTLD_NOW), "__asan_init") != nil

    /// A gzip member that inflates to `size` zero bytes from about `size / 160` bytes: one fixed-Huffman deflate
    /// block, a literal 0 then back-references of 258 bytes at distance 1 (13 bits each). The trailer's CRC is left 0:
    /// a decoder spends the memory before it gets there.
    static func gzipOfZeros(_ size: Int) -> [UInt8] {
        var out: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF]
        var bits: UInt64 = 0
        var pending = 0
        func put(_ value: UInt64, _ count: Int) {
            bits |= value << pending
            pending += count
            while pending >= 8 {
                out.append(UInt8(truncatingIfNeeded: bits))
                bits >>= 8
                pending -= 8
            }
        }
        /// Huffman codes go most significant bit first.
        func code(_ value: UInt64, _ count: Int) {
            var reversed: UInt64 = 0
            for bit in 0..<count { reversed |= ((value >> bit) & 1) << (count - 1 - bit) }
            put(reversed, count)
        }
        put(1, 1)  // the final block
        put(1, 2)  // fixed Huffman codes
        code(0b0011_0000, 8)  // literal 0
        var left = size - 1
        while left >= 258 {
            code(0b1100_0101, 8)  // length 258 (code 285)
            code(0, 5)  // distance 1
            left -= 258
        }
        for _ in 0..<left { code(0b0011_0000, 8) }
        code(0, 7)  // end of block
        if pending > 0 { out.append(UInt8(truncatingIfNeeded: bits)) }
        return out + [0, 0, 0, 0] + withUnsafeBytes(of: UInt32(truncatingIfNeeded: size).littleEndian, Array.init)
    }
}
