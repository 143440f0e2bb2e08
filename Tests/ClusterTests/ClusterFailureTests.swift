import Foundation
import HTTPTestSupport
import JSON
import Testing

/// An instance killed, or PostgreSQL restarted, under load: nothing acknowledged is lost, and the cluster recovers by
/// itself.
@Suite("Cluster: failures under load", .spawnsProcesses, .serialized)
struct ClusterFailureTests {
    @Test("SIGKILL of one instance under load loses nothing acknowledged; its long-poll clients get their answer elsewhere")
    func killOneInstance() async throws {
        try await withCluster { _, nodes in
            let (a, b, c) = (nodes[0], nodes[1], nodes[2])
            let start = try await a.index()
            let producers = (0..<3).map { Producer(name: "p\($0)") }
            let running = Task {
                await withTaskGroup(of: Void.self) { group in
                    for (number, producer) in producers.enumerated() {
                        // Each starts on its own instance and moves on when that one dies.
                        let order = Array(nodes[number...] + nodes[..<number])
                        group.addTask { await producer.run(order) }
                    }
                }
            }
            let waited = try await a.create("Approve?")
            async let onB = try? b.request("GET", "/v1/alerts/\(waited)/response?wait=30", timeout: 40)
            try await eventually("the long-poll waits on B and every producer got 10 through") {
                let waiting = try await b.waiters()
                return waiting == 1 && producers.allSatisfy { $0.acknowledged.count >= 10 }
            }
            await b.kill()
            #expect(await onB == nil, "B's long-poll client lost its connection")
            // It reconnects to C, and gets its answer there.
            async let onC = c.request("GET", "/v1/alerts/\(waited)/response?wait=30", timeout: 40)
            try await eventually("the long-poll waits on C") { try await c.waiters() == 1 }
            let before = producers.map(\.acknowledged.count)
            try await eventually("every producer got 10 more through after the kill") {
                zip(producers, before).allSatisfy { $0.acknowledged.count >= $1 + 10 }
            }
            _ = try await a.request("POST", "/v1/alerts/\(waited)/response", json: #"{"buttonIndex":1}"#)
            #expect(try await onC.status == 200)
            producers.forEach { $0.stop() }
            await running.value

            try await expectKept(producers, on: [a, c], since: start)
        }
    }

    @Test("PostgreSQL stopped and started under load: writes 503 meanwhile, reads and waits go on, all recover")
    func restartPostgres() async throws {
        try await withCluster { postgres, nodes in
            let start = try await nodes[0].index()
            let producers = nodes.enumerated().map { Producer(name: "r\($0.offset)") }
            let running = Task {
                await withTaskGroup(of: Void.self) { group in
                    for (producer, node) in zip(producers, nodes) { group.addTask { await producer.run([node]) } }
                }
            }
            let waited = try await nodes[0].create("Still there?")
            async let longPoll = nodes[2].request("GET", "/v1/alerts/\(waited)/response?wait=60", timeout: 70)
            try await eventually("every producer got 10 through") {
                producers.allSatisfy { $0.acknowledged.count >= 10 }
            }
            try await postgres.stop()
            for node in nodes {
                let refused = try await node.request("POST", "/v1/alerts", json: ClusterNode.draft("down"))
                #expect(refused.status == 503)
                #expect(refused.headers["retry-after"] == "5")
                #expect(refused.headers["content-type"]?.hasPrefix("application/problem+json") == true)
                try await eventually("\(node.port) reports degraded") {
                    try await node.request("GET", "/healthz").status == 503
                }
                #expect(try await node.request("GET", "/v1/alerts/\(waited)").status == 200, "reads go on")
            }
            #expect(try await nodes[2].waiters() >= 1, "the long-poll still waits")
            try await postgres.start()
            for node in nodes {
                try await eventually("\(node.port) takes writes again", within: 20) {
                    try await node.request("POST", "/v1/alerts", json: ClusterNode.draft("up")).status == 201
                }
                try await eventually("\(node.port) reports ok") {
                    try await node.request("GET", "/healthz").status == 200
                }
            }
            let before = producers.map(\.acknowledged.count)
            try await eventually("every producer got 5 more through", within: 20) {
                zip(producers, before).allSatisfy { $0.acknowledged.count >= $1 + 5 }
            }
            _ = try await nodes[1].request("POST", "/v1/alerts/\(waited)/response", json: #"{"buttonIndex":1}"#)
            #expect(try await longPoll.status == 200)
            producers.forEach { $0.stop() }
            await running.value

            try await expectKept(producers, on: nodes, since: start)
        }
    }

    @Test("A table locked from psql: writes get 503 within seconds and /healthz says degraded; released, all go on")
    func lockedTable() async throws {
        try await withCluster(instances: 2) { postgres, nodes in
            let (a, b) = (nodes[0], nodes[1])
            let waited = try await a.create("Answer me")
            let holder = try postgres.session(
                "BEGIN; LOCK TABLE alertd_alerts IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(120); COMMIT")
            try await eventually("psql holds the lock") {
                try await postgres.sql("""
                    SELECT count(*) FROM pg_locks WHERE relation = 'alertd_alerts'::regclass
                    AND mode = 'AccessExclusiveLock' AND granted
                    """) == "1"
            }
            let started = Date()
            let created = try await a.request("POST", "/v1/alerts", json: ClusterNode.draft("locked out"),
                                              headers: [("Idempotency-Key", "locked")], timeout: 20)
            let answered = try await b.request("POST", "/v1/alerts/\(waited)/response", json: #"{"buttonIndex":1}"#,
                                               timeout: 20)
            #expect(Date().timeIntervalSince(started) < TestTime.bound(12), "refused within the batch deadline")
            for refused in [created, answered] {
                #expect(refused.status == 503)
                #expect(refused.headers["retry-after"] == "5")
                #expect(refused.text.contains("did not finish the write"), "\(refused.text)")
            }
            for node in nodes {
                try await eventually("\(node.port) reports degraded") {
                    let health = try await node.request("GET", "/healthz")
                    return health.status == 503 && health.text.contains("in time")
                }
            }
            #expect(try await a.request("GET", "/v1/alerts/\(waited)").status == 200, "reads go on")
            _ = try await postgres.sql("""
                SELECT pg_terminate_backend(pid) FROM pg_locks WHERE relation = 'alertd_alerts'::regclass
                AND mode = 'AccessExclusiveLock' AND granted
                """)
            _ = await holder.wait(timeout: TestTime.bound(10))
            for node in nodes {
                try await eventually("\(node.port) reports ok again", within: 15) {
                    try await node.request("GET", "/healthz").status == 200
                }
            }
            let retried = try await a.request("POST", "/v1/alerts", json: ClusterNode.draft("locked out"),
                                              headers: [("Idempotency-Key", "locked")])
            #expect(retried.status == 201 || retried.status == 200)
            let answer = try await b.request("POST", "/v1/alerts/\(waited)/response", json: #"{"buttonIndex":1}"#)
            #expect(answer.status == 200)
            try await eventually("A shows the answer made on B") {
                try await a.request("GET", "/v1/alerts/\(waited)").json()["result"]?.objectValue?["buttonIndex"]?
                    .int64Value == 1
            }
        }
    }

    @Test("While PostgreSQL is down, an alert made on another instance just before is 503 on this one, not 404")
    func unknownWhileDown() async throws {
        try await withCluster(instances: 2) { postgres, nodes in
            // B's follower is stopped, so that B has not applied A's create when PostgreSQL goes down.
            nodes[1].send(SIGSTOP)
            let id = try await nodes[0].create("Made on A")
            try await postgres.stop()
            nodes[1].send(SIGCONT)
            for (method, target, body) in [("POST", "/v1/alerts/\(id)/response", #"{"buttonIndex":1}"#),
                                           ("GET", "/v1/alerts/\(id)", nil)] {
                let refused = try await nodes[1].request(method, target, json: body)
                #expect(refused.status == 503, "\(method) \(target) on B: \(refused)")
                #expect(refused.headers["retry-after"] == "5")
            }
            try await postgres.start()
        }
    }

    @Test("Just after PostgreSQL restarted, an instance answers for an alert another one made: it catches up once it reconnects rather than answer 404")
    func answerAfterRestart() async throws {
        try await withCluster(instances: 2) { postgres, nodes in
            let (a, b) = (nodes[0], nodes[1])
            for round in 1...3 {
                try await postgres.stop()
                try await postgres.start()
                // A is back first (its create is retried until it is made); B may not have reconnected yet.
                var made: WireResponse?
                try await eventually("A takes a create again", within: 20) {
                    made = try await a.request("POST", "/v1/alerts", json: ClusterNode.draft("round \(round)"))
                    return made?.status == 201
                }
                let id = try made!.json().string("id")
                // A write B sends on a connection the restart broke, before it noticed, is refused (503), and so are
                // the writes until it reconnected; a retry is made then. Never 404.
                var answer: WireResponse?
                try await eventually("B takes the answer", within: 20) {
                    answer = try await b.request("POST", "/v1/alerts/\(id)/response", json: #"{"buttonIndex":1}"#)
                    return answer?.status != 503
                }
                let shown = answer.map { "\($0)" } ?? "-"
                #expect(answer?.status == 200, "round \(round): B answered the answer of \(id), acknowledged by A, with \(shown)")
                let read = try await b.request("GET", "/v1/alerts/\(id)")
                #expect(read.status == 200, "round \(round): B answered a read of \(id) with \(read)")
            }
        }
    }
}
