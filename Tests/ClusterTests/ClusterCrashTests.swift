import Foundation
import HTTPTestSupport
import JSON
import Testing

/// PostgreSQL crashing (`pg_ctl stop -m immediate`, or SIGKILL of its postmaster), and an instance SIGKILLed, under a
/// load of creates, answers, votes and rules: what an instance acknowledged is in the database after the restart and
/// on every instance; and an instance whose database lost what it showed refuses writes rather than mix two histories.
@Suite("Cluster: PostgreSQL crashes", .spawnsProcesses, .serialized)
struct ClusterCrashTests {
    @Test("A create and an answer acknowledged just before PostgreSQL crashed are in it after the restart",
          arguments: ScratchPostgres.Crash.allCases)
    func acknowledgedJustBefore(_ crash: ScratchPostgres.Crash) async throws {
        // The WAL writer wakes every 10 s: what a commit did not flush itself is lost by a crash right after it.
        try await withCluster(instances: 2, postgres: "-c wal_writer_delay=10s") { postgres, nodes in
            let answered = try await nodes[0].create("Deploy?")
            let answer = try await nodes[1].request("POST", "/v1/alerts/\(answered)/response",
                                                    json: #"{"buttonIndex":1}"#)
            try #require(answer.status == 200)
            let created = try await nodes[1].create("Created last", key: "last")
            try await postgres.crash(crash)
            try await postgres.start()

            let fresh = try await ClusterNode(database: postgres.url)
            let read = try await fresh.request("GET", "/v1/alerts/\(answered)")
            #expect(read.status == 200)
            #expect(try read.json()["result"]?.objectValue?["buttonIndex"]?.int64Value == 1, "the answer is kept")
            #expect(try await fresh.request("GET", "/v1/alerts/\(created)").status == 200, "the create is kept")
            let retried = try await fresh.request("POST", "/v1/alerts", json: ClusterNode.draft("Created last"),
                                                  headers: [("Idempotency-Key", "last")])
            #expect(retried.status == 200 && (try? retried.json().string("id")) == created, "its key replays it")
            // The instances that lived through the crash go on with the same history.
            let after = try await fresh.create("After the crash")
            for node in nodes {
                try await eventually("\(node.port) takes writes again", within: 20) {
                    try await node.request("POST", "/v1/alerts", json: ClusterNode.draft("again")).status == 201
                }
                try await eventually("\(node.port) shows the create made after the crash") {
                    try await node.request("GET", "/v1/alerts/\(after)").status == 200
                }
                try await eventually("\(node.port) reports ok") {
                    try await node.request("GET", "/healthz").status == 200
                }
                let raw = node.standardError.split(separator: "\n").filter { !$0.hasPrefix("{") }
                #expect(raw.isEmpty, "\(node.port) logs one JSON object a line, nothing of libpq's own: \(raw)")
            }
            await fresh.stop()
        }
    }

    @Test("Crashed under load: every acknowledged create, answer, vote and rule is kept; instances serve just PostgreSQL's alerts and rules",
          arguments: ScratchPostgres.Crash.allCases)
    func crashUnderLoad(_ crash: ScratchPostgres.Crash) async throws {
        let tokens = try PolicyLoad.Tokens.file()
        defer { try? FileManager.default.removeItem(at: tokens) }
        try await withCluster(arguments: ["--tokens-file", tokens.path], postgres: "-c wal_writer_delay=10s",
                              token: PolicyLoad.Tokens.admin) { postgres, nodes in
            let start = try await nodes[0].index()
            let producers = nodes.indices.map { Producer(name: "c\($0)", answering: true) }
            let policy = PolicyLoad(nodes: nodes)
            let running = Task {
                await withTaskGroup(of: Void.self) { group in
                    for (number, producer) in producers.enumerated() {
                        // Each starts on its own instance and moves on when that one does not answer.
                        let order = Array(nodes[number...] + nodes[..<number])
                        group.addTask { await producer.run(order) }
                    }
                    group.addTask { await policy.run() }
                }
            }
            let ledger = policy.ledger
            var phases = Timeline()
            /// Every producer got `creates` more through, and the policy clients `votes` more votes and `steps` more
            /// rule steps, than `since`.
            func progressed(_ what: String, creates: Int, votes: Int, steps: Int) async throws {
                let since = (producers.map(\.acknowledged.count), ledger.count(of: "votes acknowledged"),
                             ledger.count(of: "rule steps"))
                try await eventually(what, within: 30) {
                    zip(producers, since.0).allSatisfy { $0.acknowledged.count >= $1 + creates }
                        && ledger.count(of: "votes acknowledged") >= since.1 + votes
                        && ledger.count(of: "rule steps") >= since.2 + steps
                }
            }
            try await progressed("the load got creates, votes and rule steps through", creates: 10, votes: 12, steps: 6)
            phases.mark("load")

            // PostgreSQL crashes under the load; after its restart every instance shows what was acknowledged before.
            let beforeCrash = ledger.snapshot()
            try await postgres.crash(crash)
            try await postgres.start()
            try await progressed("the load got through again after the crash", creates: 5, votes: 4, steps: 3)
            phases.mark("crash and recovery")
            try await expectPolicyKept(beforeCrash, ledger, on: nodes, postgres: postgres, when: "after the crash")
            phases.mark("checks")

            // Then an instance is SIGKILLed under the load: the others, and one started after it, show what it and
            // they acknowledged.
            let beforeKill = ledger.snapshot()
            await nodes[2].kill()
            try await progressed("the load got through again after the kill", creates: 5, votes: 4, steps: 3)
            let fresh = try await ClusterNode(database: postgres.url, arguments: ["--tokens-file", tokens.path],
                                              token: PolicyLoad.Tokens.admin)
            let live = [nodes[0], nodes[1], fresh]
            phases.mark("kill and a new instance")
            try await expectPolicyKept(beforeKill, ledger, on: live, postgres: postgres, when: "after the kill")
            phases.mark("checks")

            producers.forEach { $0.stop() }
            policy.stop()
            await running.value
            #expect(producers.allSatisfy { !$0.answered.isEmpty }, "every producer got answers through too")
            #expect(ledger.failures.isEmpty, "\(ledger.failures.count) replies wrong: \(ledger.failures.prefix(10))")
            let counts = ledger.counts
            for kind in ["ballots raced", "quorums reached", "vetoes", "ballots dismissed", "rules removed", "rule answers",
                         "left pending by a removed rule"] {
                #expect((counts[kind] ?? 0) > 0, "the load made no \(kind): \(counts)")
            }

            try await expectPolicyKept(ledger.snapshot(), ledger, on: live, postgres: postgres, when: "at the end")
            try await expectKept(producers, on: live, since: start)
            try await expectSameAsPostgres(producers, on: live, postgres: postgres)
            phases.mark("last checks")
            print("ClusterCrashTests (\(crash.testDescription)): \(phases); acknowledged: "
                + "\(producers.map(\.acknowledged.count).reduce(0, +)) creates, "
                + counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))
            await fresh.stop()
        }
    }

    @Test("An instance whose database lost events it showed refuses writes and says why; a new one starts from it")
    func headMovedBack() async throws {
        try await withCluster(instances: 1) { postgres, nodes in
            let a = nodes[0]
            let kept = try await a.create("Kept")
            let lost = try await a.create("Lost")
            _ = try await a.create("Lost too")
            let shown = try await a.index()
            // As a restore of an older backup, or a failover to a standby that lagged, leaves it.
            try await postgres.sql("""
                BEGIN;
                DELETE FROM alertd_events WHERE idx > (SELECT head - 2 FROM alertd_cluster);
                DELETE FROM alertd_alerts WHERE sequence > (SELECT head - 2 FROM alertd_cluster);
                UPDATE alertd_cluster SET head = head - 2;
                COMMIT;
                """)
            try await eventually("A reports degraded, naming why") {
                let health = try await a.request("GET", "/healthz")
                return health.status == 503 && health.text.contains("no longer holds what this instance showed")
            }
            let health = try await a.request("GET", "/healthz")
            #expect(health.text.contains("restart this alertd") && !health.text.contains("reconnecting"),
                    "the health check says to restart, not that it recovers: \(health.text)")
            let logged = a.standardError.split(separator: "\n").filter {
                $0.contains(#""error""#) && $0.contains("no longer holds what this instance showed")
            }
            #expect(logged.count == 1, "one error line says it, once: \(a.standardError)")
            let refused = try await a.request("POST", "/v1/alerts", json: ClusterNode.draft("refused"))
            #expect(refused.status == 503)
            #expect(refused.text.contains("restart this alertd"), "\(refused.text)")

            let b = try await ClusterNode(database: postgres.url)
            #expect(try await b.request("GET", "/v1/alerts/\(kept)").status == 200)
            #expect(try await b.request("GET", "/v1/alerts/\(lost)").status == 404)
            let made = try await b.create("Made in the lost one's place")
            // B's create took an index A had for another alert: A does not show it in that one's place, nor says it
            // does not exist; it says to restart it.
            let unshown = try await a.request("GET", "/v1/alerts/\(made)")
            #expect(unshown.status == 503 && unshown.text.contains("restart this alertd"), "\(unshown)")
            #expect(try await a.index() == shown, "A applied nothing more")
            await b.stop()
        }
    }
}

/// How long each phase of a test took, for its summary line.
struct Timeline: CustomStringConvertible {
    private var last = ContinuousClock.now
    private var phases: [(String, Duration)] = []

    /// Ends the phase named `name` now.
    mutating func mark(_ name: String) {
        let now = ContinuousClock.now
        phases.append((name, now - last))
        last = now
    }

    var description: String {
        phases.map { name, duration in
            let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
            return "\(name) \(String(format: "%.1f", seconds)) s"
        }.joined(separator: ", ")
    }
}
