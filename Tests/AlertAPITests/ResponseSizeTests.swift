@testable import AlertAPI
import AlertdTestSupport
import Foundation
import HTTPTestSupport
import JSON
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What one answer, and one client's unread answers, may hold: a page of `GET /v1/alerts` or a long-poll of
/// `/v1/events` ends at 1 MiB with its continuation, and a client's unread `GET` answers hold at most 8 MiB.
@Suite("Response sizes", .spawnsProcesses)
struct ResponseSizeTests {
    static let mebibyte = 1 << 20

    @Test("A page of large alerts ends within 1 MiB with next; after=next lists the rest, none missed or repeated")
    func pageEndsAtByteBound() async throws {
        try await LiveServer.with { server in
            var created: [String] = []
            for number in 0..<120 { created.append(try await server.create(LargestAlert.json(number))) }
            var listed: [String] = []
            var query = "limit=1000"
            var pages = 0
            while true {
                let response = try await server.get("/v1/alerts?" + query)
                try #require(response.status == 200, "\(response.text.prefix(300))")
                #expect(response.body.count <= Self.mebibyte, "a page of \(response.body.count) bytes")
                let ids = response.json.ids
                #expect(!ids.isEmpty)
                listed += ids
                pages += 1
                guard let next = response.json["next"]?.int64Value else { break }
                query = "limit=1000&after=\(next)"
            }
            #expect(listed == created, "\(listed.count) listed of \(created.count)")
            #expect(pages >= 3, "120 alerts of 19 KB take 3 pages of 1 MiB, not \(pages)")
            // `limit` ends a page too; the last page has no `next`.
            let first = try await server.list("limit=50")
            #expect(first.ids == Array(created.prefix(50)))
            let second = try await server.list("limit=40&after=\(try #require(first["next"]?.int64Value))")
            #expect(second.ids == Array(created[50..<90]))
            let last = try await server.list("limit=40&after=\(try #require(second["next"]?.int64Value))")
            #expect(last.ids == Array(created.dropFirst(90)))
            #expect(last["next"] == nil, "nothing follows")
            let bad = try await server.get("/v1/alerts?after=-1")
            expectProblem(bad, 400, type: "urn:alertd:problem:invalid-parameter")
        }
    }

    @Test("A long-poll of large events ends within 1 MiB; X-Alertd-Index resumes it, none missed or repeated")
    func longPollEndsAtByteBound() async throws {
        try await LiveServer.with { server in
            var created: [String] = []
            for number in 0..<120 { created.append(try await server.create(LargestAlert.json(number))) }
            var seen: [String] = []
            var since = "0"
            var answers = 0
            while seen.count < created.count, answers < 20 {
                let response = try await server.get("/v1/events?since=\(since)&wait=1")
                try #require(response.status == 200, "\(response.text.prefix(300))")
                #expect(response.body.count <= Self.mebibyte, "an answer of \(response.body.count) bytes")
                let events = response.json.arrayValue ?? []
                seen += events.compactMap { $0["alert"]?["id"]?.stringValue }
                since = try #require(response.headers["x-alertd-index"])
                #expect(events.last?["id"]?.int64Value.map(String.init) == since, "resumes after its last event")
                answers += 1
            }
            #expect(seen == created)
            #expect(answers >= 3)
        }
    }

    /// Before the bounds, 100 connections that asked for `limit=1000` of these and never read held alertd at 2 GB.
    /// Each connection here pipelines 8 lists and reads none: the kernel takes the first 4 MiB (`tcp_wmem`), the
    /// next page stays with alertd, which reads no further request on that connection until it is sent.
    @Test("100 clients that never read 8 lists each: alertd's memory grows by less than 64 MB; past 8 MiB, 429")
    func nonReadingClients() async throws {
        // The idle timeout (30 s by default) would close the stalled connections, and free their pages, before a
        // loaded machine gets to the checks.
        let process = try await AlertdProcess.start(arguments: ["--access-log", "off", "--idle-timeout", "5m"])
        defer { process.send(SIGKILL) }
        let creates = (0..<1000).map { number in
            RawHTTP.persistentRequest("POST", "/v1/alerts", body: Array(LargestAlert.json(number).utf8))
        }
        let created = try await RawHTTP.keepAlive(creates, port: process.port, timeout: 60)
        try #require(created.count == 1000 && created.allSatisfy { $0.status == 201 })
        let list = RawHTTP.request("GET", "/v1/alerts?limit=1000")
        let warm = try await RawHTTP.exchange(list, port: process.port)
        #expect(warm.status == 200 && warm.body.count <= Self.mebibyte)
        let before = try #require(process.memory("VmRSS"))
        let port = process.port
        let pipelined = Array(Array(repeating: RawHTTP.persistentRequest("GET", "/v1/alerts?limit=1000"),
                                    count: 8).joined())
        let sockets = try await WireSocket.onThread { () -> Result<[WireSocket], WireSocket.Failure> in
            Result { () throws(WireSocket.Failure) in
                var sockets: [WireSocket] = []
                for _ in 0..<100 {
                    let socket = try WireSocket(port: port, timeout: 30, receiveBuffer: 4096)
                    try socket.send(pipelined)
                    sockets.append(socket)
                }
                return sockets
            }
        }.get()
        // Once their unread pages hold 8 MiB, a list for this address is refused (small, so it is read).
        var answer: WireResponse?
        let full = try await TestTime.until(every: .milliseconds(50)) {
            answer = try await RawHTTP.exchange(list, port: port)
            return answer?.status == 429
        }
        let refused = try #require(answer)
        #expect(full, "never refused: \(refused.status)")
        #expect(refused.isProblem && refused.headers["retry-after"] == "1", "\(refused.headers)")
        #expect(refused.json["type"] == .string("urn:alertd:problem:unread-responses"), "\(refused.text)")
        #expect(try await RawHTTP.exchange(RawHTTP.request("GET", "/healthz"), port: port).status == 200,
                "small answers still go out")
        let gauge = PrometheusText(try await RawHTTP.exchange(RawHTTP.request("GET", "/metrics"), port: port).text)
        let unread = try #require(gauge["alertd_http_unread_response_bytes"])
        #expect(unread > 7 * Double(Self.mebibyte) && unread <= 8 * Double(Self.mebibyte), "\(unread)")
        let after = try #require(process.memory("VmRSS"))
        #expect(after - before < 64 * 1024, "resident memory grew from \(before) kB to \(after) kB")
        // Once they hang up, their answers are let go: another client is answered in full.
        for socket in sockets { socket.hangUp() }
        var last = 0
        let answered = try await TestTime.until(every: .milliseconds(50)) {
            last = try await RawHTTP.exchange(list, port: port).status
            return last == 200
        }
        #expect(answered, "still \(last) after the clients left")
    }
}
