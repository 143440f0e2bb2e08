import Foundation
import HTTPTestSupport
import JSON
import Testing

/// Three alertd instances on one PostgreSQL behave as one service: whichever instance a client talks to.
@Suite("Cluster: one service over three instances", .spawnsProcesses, .serialized)
struct ClusterBasicsTests {
    @Test("An answer on A wakes the long-polls waiting on B and C")
    func answerWakesOtherInstances() async throws {
        try await withCluster { _, nodes in
            let (a, b, c) = (nodes[0], nodes[1], nodes[2])
            let id = try await a.create("Deploy?")
            async let onB = b.request("GET", "/v1/alerts/\(id)/response?wait=30", timeout: 40)
            async let onC = c.request("GET", "/v1/alerts/\(id)/response?wait=30", timeout: 40)
            try await eventually("B and C hold the long-polls") {
                let (onB, onC) = (try await b.waiters(), try await c.waiters())
                return onB == 1 && onC == 1
            }
            let answered = try await a.request("POST", "/v1/alerts/\(id)/response", json: #"{"buttonIndex":1}"#)
            #expect(answered.status == 200)
            let started = Date()
            let (fromB, fromC) = try await (onB, onC)
            #expect(Date().timeIntervalSince(started) < TestTime.bound(5))
            for response in [fromB, fromC] {
                #expect(response.status == 200, "\(response)")
                #expect(try response.json()["buttonTitle"]?.stringValue == "Yes")
            }
        }
    }

    @Test("Of 24 concurrent answers over three instances exactly one wins; 23 get 409 naming the same winner")
    func exactlyOneAnswerWins() async throws {
        try await withCluster { _, nodes in
            let id = try await nodes[0].create("Roll back?")
            for node in nodes {
                try await eventually("every instance knows the alert") {
                    try await node.request("GET", "/v1/alerts/\(id)").status == 200
                }
            }
            let responses = try await withThrowingTaskGroup(of: WireResponse.self) { group in
                for attempt in 0..<24 {
                    let node = nodes[attempt % 3]
                    let body = #"{"buttonIndex":\#(attempt % 2),"values":[]}"#
                    group.addTask { try await node.request("POST", "/v1/alerts/\(id)/response", json: body) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let winners = responses.filter { $0.status == 200 }
            let losers = responses.filter { $0.status == 409 }
            try #require(winners.count == 1, "\(responses.map(\.status))")
            #expect(losers.count == 23)
            let winner = try winners[0].json()
            for loser in losers {
                let result = try loser.json()["result"]?.objectValue
                #expect(result?["buttonIndex"] == winner["buttonIndex"])
                #expect(result?["resolvedAt"] == winner["resolvedAt"])
            }
            for node in nodes {
                let result = try await node.request("GET", "/v1/alerts/\(id)/response").json()
                #expect(result["resolvedAt"] == winner["resolvedAt"])
            }
        }
    }

    @Test("An SSE stream on A sees the events made on B and C gap-free and in order, and resumes on C")
    func eventStreamAcrossInstances() async throws {
        try await withCluster { _, nodes in
            let (a, b, c) = (nodes[0], nodes[1], nodes[2])
            let start = try await a.index()
            let stream = try SSEClient(port: a.port, headers: [("Last-Event-ID", "\(start)")], lifetime: 120)
            var ids: [String] = []
            for round in 0..<6 {
                let maker = round.isMultiple(of: 2) ? b : c
                ids.append(try await maker.create("event \(round)"))
            }
            _ = try await c.request("POST", "/v1/alerts/\(ids[0])/response", json: #"{"buttonIndex":1}"#)
            _ = try await b.request("DELETE", "/v1/alerts/\(ids[1])")
            try await eventually("A streams all 8 events") { stream.received.count >= 8 }
            let first = stream.received
            #expect(first.compactMap(\.index) == Array(start + 1 ... start + 8))
            #expect(first.map(\.event) == Array(repeating: "created", count: 6) + ["answered", "dismissed"])
            stream.disconnect()

            // Made while nobody listens; a client resuming on C with the last id it saw misses none of them.
            for round in 0..<3 { _ = try await b.create("later \(round)") }
            let last = try #require(first.last?.index)
            let resumed = try SSEClient(port: c.port, headers: [("Last-Event-ID", "\(last)")], lifetime: 120)
            try await eventually("C streams the 3 later events") { resumed.received.count >= 3 }
            #expect(resumed.received.compactMap(\.index) == Array(start + 9 ... start + 11))
            resumed.disconnect()

            // The same history, read from B: identical events.
            let replay = try SSEClient(port: b.port, headers: [("Last-Event-ID", "\(start)")], lifetime: 120)
            try await eventually("B replays all 11") { replay.received.count >= 11 }
            #expect(Array(replay.received.prefix(8)) == first)
            replay.disconnect()
        }
    }

    @Test("An Idempotency-Key retried on another instance returns the original alert")
    func idempotencyAcrossInstances() async throws {
        try await withCluster { _, nodes in
            let draft = ClusterNode.draft("Once")
            let made = try await nodes[0].request("POST", "/v1/alerts", json: draft, headers: [("Idempotency-Key", "k-1")])
            #expect(made.status == 201)
            let retried = try await nodes[1].request("POST", "/v1/alerts", json: draft,
                                                     headers: [("Idempotency-Key", "k-1")])
            #expect(retried.status == 200)
            #expect(retried.headers["idempotent-replayed"] == "true")
            #expect(try retried.json().string("id") == made.json().string("id"))
            let changed = try await nodes[2].request("POST", "/v1/alerts", json: ClusterNode.draft("Other"),
                                                     headers: [("Idempotency-Key", "k-1")])
            #expect(changed.status == 422)
            let list = try await nodes[2].request("GET", "/v1/alerts").json()
            #expect(list["alerts"]?.arrayValue?.count == 1)
        }
    }

    @Test("Alerts made on A read on B and C exactly as on A: any text, fields, style, expiry, callback, policy")
    func alertsReadTheSameEverywhere() async throws {
        try await withCluster(arguments: ["--webhook-allow", "loopback"]) { _, nodes in
            let bodies = [
                #"{"title":"Plain","buttons":["No","Yes"]}"#,
                #"{"title":"Escapes","message":"quote \" backslash \\ tab \t newline \n bell \u0007 end","#
                    + #""buttons":["No","Yes"]}"#,
                #"{"title":"Déploiement ✓ 🚀","message":"ünïcode","tag":-42,"presenter":"ops","animated":false,"#
                    + #""buttons":[{"title":"Non","style":"cancel"},{"title":"Oui"},"#
                    + #"{"title":"Wipe","style":"destructive"}],"fields":[{"placeholder":"Name","text":"prefilled é"},"#
                    + #"{"placeholder":"PIN","secure":true,"keyboard":"numberPad"}],"#
                    + #""timeout":600,"callback":"http://127.0.0.1:9/hook"}"#,
                #"{"title":"Two of them","buttons":["No","Yes"],"quorum":2,"responders":["alice","bob"]}"#,
                #"{"title":"Sheet","style":"actionSheet","buttons":["Cancel","A","B"],"timeout":900}"#,
            ]
            for body in bodies {
                let made = try await nodes[0].request("POST", "/v1/alerts", json: body)
                try #require(made.status == 201, "\(made)")
                let id = try made.json().string("id")
                let onA = try await nodes[0].request("GET", "/v1/alerts/\(id)").json()
                for node in nodes.dropFirst() {
                    try await eventually("the alert reached the other instance") {
                        try await node.request("GET", "/v1/alerts/\(id)").status == 200
                    }
                    #expect(try await node.request("GET", "/v1/alerts/\(id)").json() == onA)
                }
            }
        }
    }

    @Test("An expiry happens once, whichever instance gets there first, and every instance shows it")
    func expiryOnce() async throws {
        try await withCluster { _, nodes in
            let start = try await nodes[0].index()
            let made = try await nodes[0].request("POST", "/v1/alerts", json: #"{"title":"Soon","timeout":1}"#)
            let id = try made.json().string("id")
            for node in nodes {
                let result = try await node.request("GET", "/v1/alerts/\(id)/response?wait=20", timeout: 30)
                #expect(try result.json()["resolution"]?.stringValue == "expired")
            }
            let stream = try SSEClient(port: nodes[1].port, headers: [("Last-Event-ID", "\(start)")], lifetime: 120)
            try await eventually("the two events") { stream.received.count >= 2 }
            #expect(stream.received.map(\.event) == ["created", "expired"])
            // Every instance proposed it; a second expiry would have made a third event by now.
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await nodes[2].index() == start + 2)
            stream.disconnect()
        }
    }

    @Test("A callback is delivered once the alert resolves, by one instance, whichever resolved it")
    func callbackDelivered() async throws {
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        try await withCluster(arguments: ["--webhook-allow", "loopback"]) { _, nodes in
            let callback = "http://127.0.0.1:\(receiver.port)/hook"
            let made = try await nodes[0].request(
                "POST", "/v1/alerts", json: #"{"title":"Hook","buttons":[{"title":"No"},{"title":"Yes"}],"callback":"\#(callback)"}"#)
            #expect(made.status == 201, "\(made)")
            let id = try made.json().string("id")
            _ = try await nodes[1].request("POST", "/v1/alerts/\(id)/response", json: #"{"buttonIndex":1}"#)
            try await eventually("the receiver got the result") {
                receiver.answered.map(\.text).contains { $0.contains(id) }
            }
            // Claimed by one instance: the other two never post it (their next claims run within a second).
            try await Task.sleep(for: .milliseconds(2500))
            #expect(receiver.answered.map(\.text).filter { $0.contains(id) }.count == 1)
        }
    }

    @Test("The events table and the server's log hold no secure value; another instance still hands them over")
    func secureValuesKeptOutOfEvents() async throws {
        // Every statement logged, with its parameters unless the session says otherwise.
        let logging = "-c log_statement=all -c log_parameter_max_length=-1 -c log_parameter_max_length_on_error=-1"
        try await withCluster(instances: 2, postgres: logging) { postgres, nodes in
            let (a, b) = (nodes[0], nodes[1])
            let created = try await a.request("POST", "/v1/alerts", json: """
                {"title":"Log in","buttons":[{"title":"Cancel"},{"title":"Log in"}],
                 "fields":[{"placeholder":"User"},{"placeholder":"Password","secure":true,"text":"initial-s3cret"}]}
                """)
            try #require(created.status == 201, "\(created)")
            let id = try created.json().string("id")
            let answered = try await a.request("POST", "/v1/alerts/\(id)/response",
                                               json: #"{"buttonIndex":1,"values":["alice","typed-s3cret"]}"#)
            try #require(answered.status == 200, "\(answered)")
            try await eventually("B has the answer, with its secure value") {
                let result = try await b.request("GET", "/v1/alerts/\(id)/response").json()
                return result["values"]?.arrayValue?.compactMap(\.stringValue) == ["alice", "typed-s3cret"]
            }
            let read = try await b.request("GET", "/v1/alerts/\(id)").json()
            #expect(read["fields"]?.arrayValue?.last?.objectValue?["text"]?.stringValue == "initial-s3cret")
            let count = "SELECT count(*) FROM alertd_events WHERE alert LIKE '%s3' || 'cret%'"  // not itself in the log
            #expect(try await postgres.sql(count) == "0")
            #expect(try await postgres.sql("SELECT count(*) FROM alertd_events") == "2", "both events are there")
            // An instance that reads the events later (a catch-up after a reconnect) gets them too.
            let c = try await ClusterNode(database: postgres.url)
            let stream = try SSEClient(port: c.port, headers: [("Last-Event-ID", "0")], lifetime: 120)
            try await eventually("C streams both events") { stream.received.count >= 2 }
            stream.disconnect()
            #expect(try await c.request("GET", "/v1/alerts/\(id)/response").json()["values"]?.arrayValue?
                .compactMap(\.stringValue) == ["alice", "typed-s3cret"])
            await c.stop()
            let log = try String(contentsOfFile: postgres.directory + "/postgres.log", encoding: .utf8)
            #expect(log.contains("alertd_alerts"), "statements are logged")
            #expect(!log.contains("s3cret"), "no secure value in PostgreSQL's log")
        }
    }

    @Test("a waiter on an instance that lagged past retention gets the secure value typed, not a placeholder")
    func laggingWaiterGetsSecureValue() async throws {
        try await withCluster(instances: 2, arguments: ["--retention", "0"]) { postgres, nodes in
            let (a, b) = (nodes[0], nodes[1])
            let created = try await b.request("POST", "/v1/alerts", json: """
                {"title":"Unlock","buttons":[{"title":"Cancel"},{"title":"Unlock"}],
                 "fields":[{"placeholder":"PIN","secure":true}]}
                """)
            try #require(created.status == 201, "\(created)")
            let id = try created.json().string("id")
            let waiting = Task { try await b.request("GET", "/v1/alerts/\(id)/response?wait=200", timeout: 200) }
            try await eventually("B holds the waiter") { try await b.waiters() == 1 }
            b.send(SIGSTOP)
            let answered = try await a.request("POST", "/v1/alerts/\(id)/response",
                                               json: #"{"buttonIndex":1,"values":["LAGSECRET"]}"#)
            try #require(answered.status == 200, "\(answered)")
            // A plain alert resolved after it: once retention has deleted its row, A's prune has run (once a minute).
            let plain = try await a.create("Plain")
            _ = try await a.request("DELETE", "/v1/alerts/\(plain)")
            try await eventually("A's prune ran", within: 150) {
                try await postgres.sql("SELECT count(*) FROM alertd_alerts WHERE id = '\(plain)'") == "0"
            }
            b.send(SIGCONT)
            let result = try await waiting.value
            #expect(result.status == 200, "\(result)")
            #expect(try result.json()["values"]?.arrayValue?.compactMap(\.stringValue) == ["LAGSECRET"], "\(result.text)")
        }
    }
}
