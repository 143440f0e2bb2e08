@testable import AlertAPI
import Foundation
import Testing

extension LiveServer {
    /// Opens `GET target` as an event stream and reads up to its first `retry:`, after which
    /// the stream's cursor is fixed (a later change is sure to be delivered).
    func openStream(
        _ target: String = "/v1/events", headers: [(String, String)] = [], receiveBuffer: Int? = nil,
        maxSegment: Int? = nil, lifetime: Double = 60
    ) async throws -> SSEClient {
        let client = try SSEClient(port: port, target: target, headers: headers, receiveBuffer: receiveBuffer,
                                   maxSegment: maxSegment, lifetime: lifetime)
        _ = try await client.expectStreamStart()
        return client
    }

    /// Creates `count` alerts over HTTP, `parallel` at a time, with bodies from `body(i)`; returns their ids in order.
    func createMany(_ count: Int, parallel: Int = 8, _ body: @escaping @Sendable (Int) -> String) async throws -> [String] {
        try await withThrowingTaskGroup(of: [(Int, String)].self) { group in
            for lane in 0..<parallel {
                group.addTask {
                    var made: [(Int, String)] = []
                    for index in stride(from: lane, to: count, by: parallel) {
                        made.append((index, try await create(body(index))))
                    }
                    return made
                }
            }
            var all: [(Int, String)] = []
            for try await made in group { all += made }
            return all.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }
}

/// `GET /v1/events`: Server-Sent Events, one per change, resumable without gap or duplicate.
@Suite("Event stream (SSE)")
struct EventStreamTests {
    @Test("The stream: text/event-stream, retry first, then id/event/data per change with consecutive ids")
    func streamFormat() async throws {
        try await LiveServer.with { server in
            let client = try SSEClient(port: server.port)
            defer { client.disconnect() }
            let head = try await client.head()
            #expect(head.status == 200)
            #expect(head.headers["content-type"]?.hasPrefix("text/event-stream") == true, "\(head.headers)")
            #expect(head.headers["cache-control"] == "no-cache")
            #expect(head.headers["transfer-encoding"]?.contains("chunked") == true)
            #expect(head.headers["x-request-id"]?.isEmpty == false)
            guard case .retry(let retry, let id)? = await client.next() else {
                Issue.record("the stream does not start with a retry: field")
                return
            }
            #expect(retry == 1000)
            #expect(id == "0", "the opening block's id is the stream's cursor: none yet on a fresh server")

            let answered = try await server.create(#"{"title":"answered","buttons":["No","Yes"]}"#)
            let answer = try await server.answer(answered, #"{"buttonIndex":1}"#)
            let dismissed = try await server.create(#"{"title":"dismissed","buttons":["Cancel","OK"]}"#)
            _ = try await server.delete("/v1/alerts/\(dismissed)")
            let expired = try await server.create(#"{"title":"expired","timeout":0.2}"#)

            let messages = await client.messages(6)
            try #require(messages.count == 6, "\(messages)")
            #expect(messages.map(\.event) == ["created", "answered", "created", "dismissed", "created", "expired"])
            #expect(messages.compactMap(\.index) == [1, 2, 3, 4, 5, 6])
            #expect(messages.map { $0.json["id"]?.stringValue ?? "?" }
                == [answered, answered, dismissed, dismissed, expired, expired])
            // data: the Alert, in its usual shape, as it is just after the change.
            let created = messages[0].json
            #expect(Array(created.keys.prefix(alertMembers.count)) == alertMembers, "\(created.keys)")
            #expect(created["state"] == .string("pending"))
            #expect(created["result"] == .null)
            #expect(messages[1].json["state"] == .string("resolved"))
            #expect(messages[1].json["result"] == answer.json)
            #expect(messages[3].json["result"]?["resolution"] == .string("dismissed"))
            #expect(messages[5].json["result"]?["resolution"] == .string("expired"))
            // Each message is one `data:` line of JSON.
            #expect(!messages.contains { $0.data.contains("\n") })
        }
    }

    @Test("Secure values are null in events (and never on the wire), other values are shown")
    func secureValuesLeftOut() async throws {
        try await LiveServer.with { server in
            let client = try await server.openStream()
            defer { client.disconnect() }
            let id = try await server.create("""
                {"title":"Login","buttons":["Cancel","Log in"],
                 "fields":[{"placeholder":"User","text":"alice-prefill"},{"placeholder":"Password","secure":true,"text":"hunter2-prefill"}]}
                """)
            _ = try await server.answer(id, #"{"buttonIndex":1,"values":["alice","s3cret-answer"]}"#)
            let messages = await client.messages(2)
            try #require(messages.count == 2)
            let created = messages[0].json
            #expect(created["fields"]?[0]?["text"] == .string("alice-prefill"))
            #expect(created["fields"]?[1]?["text"] == .null)
            let answered = messages[1].json
            #expect(answered["result"]?["values"] == .array([.string("alice"), .null]))
            #expect(answered["fields"]?[1]?["text"] == .null)
            let wire = client.rawText
            #expect(!wire.contains("hunter2-prefill"))
            #expect(!wire.contains("s3cret-answer"))
            // The producer still reads them on the alert itself.
            #expect(try await server.alert(id).json["result"]?["values"]?[1] == .string("s3cret-answer"))
        }
    }

    @Test("Without a cursor the stream starts from now; since=0 replays from the start")
    func cursorDefaults() async throws {
        try await LiveServer.with { server in
            _ = try await server.createMany(3, parallel: 1) { #"{"title":"before \#($0)"}"# }
            let live = try await server.openStream()
            defer { live.disconnect() }
            let replay = try await server.openStream("/v1/events?since=0")
            defer { replay.disconnect() }
            let after = try await server.create(#"{"title":"after"}"#)
            let fromNow = await live.messages(1)
            #expect(fromNow.map(\.index) == [4])
            #expect(fromNow.first?.json["id"] == .string(after))
            let fromStart = await replay.messages(4)
            #expect(fromStart.map(\.index) == [1, 2, 3, 4])
            #expect(fromStart.map { $0.json["title"]?.stringValue ?? "" } == ["before 0", "before 1", "before 2", "after"])
        }
    }

    @Test("The opening block's id is the cursor: a naive reconnect with the last id seen misses nothing")
    func naiveReconnectFromOpeningID() async throws {
        try await LiveServer.with { server in
            _ = try await server.createMany(3, parallel: 1) { #"{"title":"before \#($0)"}"# }
            // A client such as httpx-sse's obvious loop: keep the last id of any block, reconnect with it.
            let first = try SSEClient(port: server.port)
            _ = try await first.head()
            guard case .retry(let retry, let lastSeen?)? = await first.next() else {
                Issue.record("the stream's opening block has no id")
                return
            }
            #expect(retry == 1000)
            #expect(lastSeen == "3", "the cursor of a stream from now is the store's index")
            first.disconnect()
            // Changes while the client is away, then the reconnect with the id it kept.
            let missed = try await server.createMany(2, parallel: 1) { #"{"title":"while away \#($0)"}"# }
            let second = try await server.openStream(headers: [("Last-Event-ID", lastSeen)])
            defer { second.disconnect() }
            let messages = await second.messages(2)
            #expect(messages.compactMap(\.index) == [4, 5])
            #expect(messages.map { $0.json["id"]?.stringValue ?? "?" } == missed)
        }
    }

    @Test("Resume with Last-Event-ID or since=N: exactly the events after N; the header wins over since")
    func resumeFromCursor() async throws {
        try await LiveServer.with { server in
            _ = try await server.createMany(6, parallel: 1) { #"{"title":"n\#($0 + 1)"}"# }
            let byHeader = try await server.openStream(headers: [("Last-Event-ID", "2")])
            defer { byHeader.disconnect() }
            let byQuery = try await server.openStream("/v1/events?since=2")
            defer { byQuery.disconnect() }
            let both = try await server.openStream("/v1/events?since=0", headers: [("Last-Event-ID", "4")])
            defer { both.disconnect() }
            let current = try await server.openStream("/v1/events?since=6")
            defer { current.disconnect() }
            _ = try await server.create(#"{"title":"n7"}"#)
            #expect(await byHeader.messages(5).compactMap(\.index) == [3, 4, 5, 6, 7])
            #expect(await byQuery.messages(5).compactMap(\.index) == [3, 4, 5, 6, 7])
            #expect(await both.messages(3).compactMap(\.index) == [5, 6, 7])
            #expect(await current.messages(1).compactMap(\.index) == [7])
        }
    }

    /// The issue's scenario: resume after a cut, nothing missed or repeated, under concurrent load.
    @Test("1,000 alerts created and answered by 4 concurrent producers; cut after ~300 events and resumed: ids 1...2000, each once, in order")
    func resumeAfterCutUnderLoad() async throws {
        try await LiveServer.with { server in
            let producers = 4
            let perProducer = 250
            let total = producers * perProducer * 2
            let first = try await server.openStream("/v1/events?since=0")
            let load = Task {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for producer in 0..<producers {
                        group.addTask {
                            for number in 0..<perProducer {
                                let id = try await server.create(
                                    #"{"title":"p\#(producer) #\#(number)","presenter":"p\#(producer)","buttons":["No","Yes"]}"#)
                                let answer = try await server.answer(id, #"{"buttonIndex":\#(number % 2)}"#)
                                #expect(answer.status == 200)
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
            var received: [SSEMessage] = []
            received += await first.messages(300)
            first.disconnect()
            try #require(received.count == 300, "the first connection ended early: \(received.last?.description ?? "-")")
            // Reconnect as an EventSource does: with the last id seen.
            let lastSeen = try #require(received.last?.id)
            try await Task.sleep(for: .milliseconds(100))  // not ordering: away a moment, while the load goes on
            let second = try await server.openStream(headers: [("Last-Event-ID", lastSeen)])
            defer { second.disconnect() }
            received += await second.messages(through: { $0.index == UInt64(total) })
            try await load.value

            let ids = received.compactMap(\.index)
            #expect(ids.count == received.count, "every event has a numeric id")
            #expect(ids.count == total, "received \(ids.count) events, expected \(total)")
            #expect(ids == Array(1...UInt64(total)), "first deviation at position \(zip(ids, 1...).first { $0 != UInt64($1) }.map { "\($0)" } ?? "-")")

            // Each alert is created once, then answered once, in that order.
            var seen: [String: [String]] = [:]
            for message in received {
                seen[message.json["id"]?.stringValue ?? "?", default: []].append(message.event)
            }
            #expect(seen.count == total / 2)
            #expect(seen.values.allSatisfy { $0 == ["created", "answered"] })

            // A late reader replaying from the start sees the identical sequence.
            let late = try await server.openStream("/v1/events?since=0")
            defer { late.disconnect() }
            let replay = await late.messages(total)
            #expect(replay.map(\.id) == received.map(\.id))
            #expect(replay.map(\.event) == received.map(\.event))
        }
    }

    @Test("410 history-gone for a cursor older than the kept history; the boundary is exact")
    func staleCursor() async throws {
        try await LiveServer.with({ $0.store.eventHistory = 50 }) { server in
            _ = try await server.createMany(100) { #"{"title":"a\#($0)"}"# }
            for target in ["/v1/events?since=1", "/v1/events?since=0", "/v1/events?since=49", "/v1/events?since=1&wait=0"] {
                let response = try await server.get(target)
                let problem = expectProblem(response, 410, type: "urn:alertd:problem:history-gone")
                #expect(problem["title"] == .string("Event history gone"), "\(target)")
            }
            let header = try await server.send("GET", "/v1/events", headers: [("Last-Event-ID", "1")])
            expectProblem(header, 410, type: "urn:alertd:problem:history-gone")
            // Events 51...100 are kept: a cursor of 50 misses nothing.
            let client = try await server.openStream("/v1/events?since=50")
            defer { client.disconnect() }
            let messages = await client.messages(50)
            #expect(messages.compactMap(\.index) == Array(51...100))
        }
    }

    @Test("410 for a cursor ahead of the store (one from before a restart)")
    func cursorAhead() async throws {
        try await LiveServer.with { server in
            _ = try await server.createMany(3) { #"{"title":"a\#($0)"}"# }
            expectProblem(try await server.get("/v1/events?since=4"), 410, type: "urn:alertd:problem:history-gone")
            expectProblem(try await server.get("/v1/events?since=18446744073709551615"), 410,
                          type: "urn:alertd:problem:history-gone")
            let header = try await server.send("GET", "/v1/events", headers: [("Last-Event-ID", "1000")])
            expectProblem(header, 410, type: "urn:alertd:problem:history-gone")
            let current = try await server.openStream("/v1/events?since=3")
            current.disconnect()
        }
    }

    @Test("With a data dir, a cursor from before a restart resumes after it with nothing missed and nothing repeated")
    func cursorFromBeforeRestart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("alertd-events-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var lastSeen = ""
        var instance: String?
        try await LiveServer.with({ $0.dataDirectory = directory }) { old in
            let client = try await old.openStream()
            defer { client.disconnect() }
            _ = try await old.createMany(3, parallel: 1) { #"{"title":"old \#($0)"}"# }
            lastSeen = await client.messages(3).last?.id ?? ""
            instance = try await old.get("/healthz").headers["x-alertd-instance"]
        }
        #expect(lastSeen == "3")
        try await LiveServer.with({ $0.dataDirectory = directory }) { new in
            #expect(try await new.get("/healthz").headers["x-alertd-instance"] == instance, "the data dir keeps it")
            _ = try await new.createMany(5, parallel: 1) { #"{"title":"new \#($0)"}"# }
            let response = try await new.send("GET", "/v1/events?wait=0", headers: [("Last-Event-ID", lastSeen)])
            #expect(response.status == 200, "\(response.text)")
            let events = response.json.arrayValue ?? []
            #expect(events.map { $0["id"]?.int64Value } == [4, 5, 6, 7, 8])
            #expect(events.compactMap { $0["alert"]?["title"]?.stringValue } == (0..<5).map { "new \($0)" })
        }
    }

    @Test("Without a data dir, a restarted server says so: its X-Alertd-Instance changes")
    func memoryOnlyRestartShowsInInstance() async throws {
        var instance: String?
        try await LiveServer.with { old in instance = try await old.get("/healthz").headers["x-alertd-instance"] }
        try await LiveServer.with { new in
            let now = try await new.get("/healthz").headers["x-alertd-instance"]
            #expect(instance != nil && now != nil && now != instance)
        }
    }

    @Test("Bad cursors and filters are 400 problems naming the parameter or header")
    func badParameters() async throws {
        try await LiveServer.with { server in
            for (query, parameter) in [("since=abc", "since"), ("since=-1", "since"), ("since=1.5", "since"),
                                       ("type=created,bogus", "type"), ("type=", "type"), ("type=Created", "type"),
                                       ("presenter=bad%20name", "presenter"), ("wait=301", "wait"), ("wait=x", "wait")] {
                let response = try await server.get("/v1/events?\(query)")
                expectProblem(response, 400, parameter: parameter, type: "urn:alertd:problem:invalid-parameter")
            }
            for value in ["abc", "-1", "1.0"] {
                let response = try await server.send("GET", "/v1/events", headers: [("Last-Event-ID", value)])
                let problem = expectProblem(response, 400, type: "urn:alertd:problem:invalid-header")
                #expect(problem["errors"]?[0]?["header"] == .string("Last-Event-ID"), "\(response.text)")
            }
        }
    }

    @Test("Filters: presenter= and type= (a comma-separated list), alone and together")
    func filters() async throws {
        try await LiveServer.with { server in
            let byPresenter = try await server.openStream("/v1/events?presenter=ops")
            defer { byPresenter.disconnect() }
            let byType = try await server.openStream("/v1/events?type=answered,dismissed")
            defer { byType.disconnect() }
            let both = try await server.openStream("/v1/events?presenter=ops&type=created")
            defer { both.disconnect() }

            let ops1 = try await server.create(#"{"title":"ops 1","presenter":"ops","buttons":["No","Yes"]}"#)
            let dev1 = try await server.create(#"{"title":"dev 1","presenter":"dev","buttons":["No","Yes"]}"#)
            _ = try await server.answer(dev1, #"{"buttonIndex":1}"#)
            _ = try await server.delete("/v1/alerts/\(ops1)")
            let ops2 = try await server.create(#"{"title":"ops 2","presenter":"ops"}"#)
            _ = try await server.answer(ops2, #"{"buttonIndex":0}"#)

            func summary(_ messages: [SSEMessage]) -> [String] {
                messages.map { "\($0.index ?? 0) \($0.event) \($0.json["title"]?.stringValue ?? "?")" }
            }
            #expect(summary(await byPresenter.messages(4))
                == ["1 created ops 1", "4 dismissed ops 1", "5 created ops 2", "6 answered ops 2"])
            #expect(summary(await byType.messages(3)) == ["3 answered dev 1", "4 dismissed ops 1", "6 answered ops 2"])
            #expect(summary(await both.messages(2)) == ["1 created ops 1", "5 created ops 2"])

            // Nothing else was sent: the next message on each is the next matching change.
            let marker = try await server.create(#"{"title":"marker","presenter":"ops"}"#)
            _ = try await server.delete("/v1/alerts/\(marker)")
            #expect(summary(await byPresenter.messages(1)) == ["7 created marker"])
            #expect(summary(await byType.messages(1)) == ["8 dismissed marker"])
            #expect(summary(await both.messages(1)) == ["7 created marker"])
        }
    }

    @Test("Filters apply to a replay from a cursor too")
    func filteredReplay() async throws {
        try await LiveServer.with { server in
            for index in 0..<6 {
                let id = try await server.create(#"{"title":"t\#(index)","presenter":"\#(index % 2 == 0 ? "even" : "odd")"}"#)
                _ = try await server.answer(id, #"{"buttonIndex":0}"#)
            }
            let client = try await server.openStream("/v1/events?since=0&presenter=odd&type=answered")
            defer { client.disconnect() }
            let messages = await client.messages(3)
            #expect(messages.map { $0.json["title"]?.stringValue ?? "?" } == ["t1", "t3", "t5"])
            #expect(messages.compactMap(\.index) == [4, 8, 12])
        }
    }

    @Test("An idle stream gets a keep-alive comment every --event-keepalive seconds")
    func keepAlive() async throws {
        try await LiveServer.with({ $0.eventKeepAlive = .seconds(1) }) { server in
            let watch = Stopwatch()  // before the stream starts: the second keep-alive is 2 s of quiet after that
            let client = try await server.openStream()
            defer { client.disconnect() }
            var comments: [String] = []
            while comments.count < 2, let item = await client.next() {
                switch item {
                case .comment(let text): comments.append(text)
                case .message(let message): Issue.record("unexpected message \(message)")
                case .closed(let ending): Issue.record("the stream ended: \(ending)")
                default: break
                }
            }
            #expect(comments == ["keep-alive", "keep-alive"])
            // Not the default 15 s: two of those would take 30.
            #expect(watch.seconds > 1.9 && watch.seconds < TestTime.sooner(than: 30),
                    "two keep-alives took \(watch.seconds) s")
            // Events still arrive between keep-alives.
            _ = try await server.create(#"{"title":"after keep-alive"}"#)
            #expect(await client.nextMessage()?.event == "created")
        }
    }

    @Test("A slow reader is dropped with a final 'dropped' event; another reader receives everything")
    func slowReaderDropped() async throws {
        try await LiveServer.with({ $0.http.streamBufferLimit = 16 * 1024 }) { server in
            // Small kernel buffers on both ends, so little data backs the server's writes up.
            let slow = try await server.openStream(receiveBuffer: 4096, maxSegment: 536, lifetime: 30)
            slow.pause()
            let normal = try await server.openStream()
            defer { normal.disconnect() }
            let message = String(repeating: "m", count: 4000)
            let count = 300
            let watch = Stopwatch()
            let load = Task {
                try await server.createMany(count, parallel: 4) { #"{"title":"big \#($0)","message":"\#(message)"}"# }
            }
            // The normal reader keeps up while the slow one backs up: it never waits the slow one's grace (5 s) for
            // its next event. (How long the whole load takes depends on the machine, not on the readers.)
            var received: [SSEMessage] = []
            var longestWait = 0.0
            var last = Stopwatch()
            while received.count < count, let message = await normal.nextMessage() {
                received.append(message)
                longestWait = max(longestWait, last.seconds)
                last = Stopwatch()
            }
            #expect(received.count == count)
            #expect(received.compactMap(\.index) == Array(1...UInt64(count)))
            _ = try await load.value
            #expect(longestWait < 4.5, "the normal reader waited \(longestWait) s for an event, as long as the grace")

            // Within the 5 s grace (plus slack) the slow reader is dropped and counted.
            var dropped = 0.0
            _ = try await TestTime.until(every: .milliseconds(100)) {
                dropped = try await server.metrics()["alertd_event_streams_dropped_total"] ?? 0
                return dropped >= 1
            }
            #expect(dropped == 1, "alertd_event_streams_dropped_total is \(dropped)")
            #expect(watch.seconds >= 4.5, "dropped after \(watch.seconds) s, before the 5 s grace")

            // What the slow reader finally reads ends with the `dropped` event, then the end of the body.
            slow.resume()
            let rest = await slow.rest()
            let messages = rest.compactMap { item -> SSEMessage? in
                if case .message(let message) = item { return message }
                return nil
            }
            #expect(messages.last?.event == "dropped", "\(messages.suffix(2))")
            #expect(messages.last?.json["reason"]?.stringValue?.isEmpty == false)
            #expect(messages.dropLast().count < count, "the slow reader was sent everything")
            let ids = messages.dropLast().compactMap(\.index)
            #expect(ids == Array(stride(from: 1, through: UInt64(ids.count), by: 1)), "what it got is a gap-free prefix")
            if case .closed(let ending)? = rest.last {
                #expect(ending == .endOfBody || ending == .connectionClosed, "\(ending)")
            }

            // The server and the other reader carry on.
            _ = try await server.create(#"{"title":"after the drop"}"#)
            #expect(await normal.nextMessage()?.index == UInt64(count + 1))
            #expect(try await server.metrics()["alertd_event_streams_dropped_total"] == 1)
        }
    }

    @Test("A reader catching up on a backlog bigger than the buffer limit is not dropped (default limit)")
    func largeBacklogNotDropped() async throws {
        try await LiveServer.with { server in
            // 300 events of about 3.3 KB: one batch of 256 is far over the default 256 KiB buffer.
            let message = String(repeating: "b", count: 3000)
            _ = try await server.createMany(300) { #"{"title":"backlog \#($0)","message":"\#(message)"}"# }
            let watch = Stopwatch()
            let client = try await server.openStream("/v1/events?since=0")
            defer { client.disconnect() }
            let messages = await client.messages(300)
            #expect(messages.compactMap(\.index) == Array(1...300), "last: \(messages.last?.description ?? "-")")
            #expect(watch.seconds < TestTime.bound(10), "catching up took \(watch.seconds) s")
            #expect(try await server.metrics()["alertd_event_streams_dropped_total"] == 0)
        }
    }

    @Test("At shutdown a stream ends with a comment and the end of the body")
    func shutdownEndsStream() async throws {
        var configuration = AlertdConfiguration()
        configuration.http.port = 0
        configuration.logDescriptor = nil
        configuration.shutdownGrace = .seconds(30)
        let app = try AlertdApp(configuration: configuration)
        let server = LiveServer(app: app)
        let client = try await server.openStream()
        _ = try await server.create(#"{"title":"before shutdown"}"#)
        #expect(await client.nextMessage()?.event == "created")
        let watch = Stopwatch()
        await app.shutdown()
        #expect(watch.seconds < TestTime.sooner(than: 30),
                "shutdown waited \(watch.seconds) s (its grace) for the stream")
        let rest = await client.rest()
        let comments = rest.compactMap { item -> String? in
            if case .comment(let text) = item { return text }
            return nil
        }
        #expect(comments.contains { $0.contains("shutting down") }, "\(rest)")
        guard case .closed(let ending)? = rest.last else {
            Issue.record("no ending")
            return
        }
        #expect(ending == .endOfBody || ending == .connectionClosed, "\(ending)")
    }

    /// HEAD gets the head GET gets: chunked, so no `Content-Length` (a `Content-Length: 0` would say the
    /// stream is empty). libmicrohttpd 0.9.75 sends the chunked terminator `0\r\n\r\n` after the head
    /// of a HEAD response with a chunked body, which a keep-alive client reads as the start of the next
    /// response ("bad status line '0'"), so the server closes the connection after the head instead.
    @Test("HEAD /v1/events answers the stream's head (chunked, no Content-Length) and no body, then closes")
    func headRequest() async throws {
        try await LiveServer.with { server in
            let client = try KeepAliveClient(port: server.port, timeout: 30)
            defer { client.hangUp() }
            let head = try await client.send("HEAD", "/v1/events")
            #expect(head.status == 200)
            #expect(head.contentType.hasPrefix("text/event-stream"))
            #expect(head.headers["transfer-encoding"] == "chunked")
            #expect(head.headers["content-length"] == nil, "GET streams: no length")
            #expect(head.headers["connection"] == "close")
            #expect(try await client.readToEnd().isEmpty, "nothing after the head, not even the last chunk")
        }
    }

    @Test("Streams hold no thread: 200 open streams, the server answers at once, and each gets the next event")
    func manyStreams() async throws {
        try await LiveServer.with { server in
            var clients: [SSEClient] = []
            for _ in 0..<200 { clients.append(try await server.openStream()) }
            defer { for client in clients { client.disconnect() } }
            let watch = Stopwatch()
            #expect(try await server.get("/healthz").status == 200)
            let id = try await server.create(#"{"title":"to everyone"}"#)
            #expect(watch.seconds < TestTime.bound(10), "the server was slow with 200 open streams: \(watch.seconds) s")
            #expect(try await server.metrics()["alertd_event_streams"] == 200)
            let firsts = await withTaskGroup(of: String?.self) { group in
                for client in clients { group.addTask { await client.nextMessage()?.json["id"]?.stringValue } }
                return await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(firsts.count == 200)
            #expect(firsts.allSatisfy { $0 == id })
        }
    }

    @Test("A reader that falls behind the kept history mid-stream gets a final 'gone' event (re-list, then resume)")
    func goneMidStream() async throws {
        try await LiveServer.with({
            $0.store.eventHistory = 100
            $0.http.streamBufferLimit = 16 * 1024
        }) { server in
            let slow = try await server.openStream(receiveBuffer: 4096, maxSegment: 536, lifetime: 30)
            slow.pause()
            // Enough to back the slow reader up (its writer waits, holding its place in the history)...
            let message = String(repeating: "g", count: 4000)
            _ = try await server.createMany(100, parallel: 4) { #"{"title":"big \#($0)","message":"\#(message)"}"# }
            // ...then more changes than the history keeps, all within the 5 s a backed-up reader is given.
            _ = try await server.createMany(150, parallel: 8) { #"{"title":"small \#($0)"}"# }
            slow.resume()
            let rest = await slow.rest()
            let messages = rest.compactMap { item -> SSEMessage? in
                if case .message(let message) = item { return message }
                return nil
            }
            let last = try #require(messages.last)
            #expect(last.event == "gone", "\(messages.suffix(2))")
            #expect(last.id == nil)
            #expect(last.json["type"] == .string("urn:alertd:problem:history-gone"), "\(last.data)")
            #expect(last.json["status"]?.int64Value == 410)
            let ids = messages.dropLast().compactMap(\.index)
            #expect(!ids.isEmpty && ids == Array(stride(from: 1, through: UInt64(ids.count), by: 1)), "a gap-free prefix, then gone")
            #expect(try await server.metrics()["alertd_event_streams_dropped_total"] == 0)
            // Re-list, then resume from the list's index: nothing after it is missed.
            let index = try #require(try await server.list("state=all&limit=1")["index"]?.int64Value)
            let resumed = try await server.openStream("/v1/events?since=\(index)")
            defer { resumed.disconnect() }
            _ = try await server.create(#"{"title":"after re-list"}"#)
            #expect(await resumed.nextMessage()?.index == UInt64(index) + 1)
        }
    }
}
