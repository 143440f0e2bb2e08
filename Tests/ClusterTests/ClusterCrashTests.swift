import Foundation
import HTTPTestSupport
import JSON
import Testing

/// PostgreSQL crashing (`pg_ctl stop -m immediate`, or SIGKILL of its postmaster): what an instance acknowledged is
/// in the database after the restart, and an instance whose database lost what it showed refuses writes rather than
/// mix two histories.
@Suite("Cluster: PostgreSQL crashes", .serialized)
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

    @Test("Crashed under load: every acknowledged create and answer is kept; instances serve just PostgreSQL's alerts",
          arguments: ScratchPostgres.Crash.allCases)
    func crashUnderLoad(_ crash: ScratchPostgres.Crash) async throws {
        try await withCluster(postgres: "-c wal_writer_delay=10s") { postgres, nodes in
            let start = try await nodes[0].index()
            let producers = nodes.enumerated().map { Producer(name: "c\($0.offset)", answering: true) }
            let running = Task {
                await withTaskGroup(of: Void.self) { group in
                    for (producer, node) in zip(producers, nodes) { group.addTask { await producer.run([node]) } }
                }
            }
            try await eventually("every producer got 10 through") {
                producers.allSatisfy { $0.acknowledged.count >= 10 }
            }
            try await postgres.crash(crash)
            try await postgres.start()
            let before = producers.map(\.acknowledged.count)
            try await eventually("every producer got 5 more through", within: 30) {
                zip(producers, before).allSatisfy { $0.acknowledged.count >= $1 + 5 }
            }
            producers.forEach { $0.stop() }
            await running.value
            #expect(producers.allSatisfy { !$0.answered.isEmpty }, "every producer got answers through too")

            // A new instance reads only what PostgreSQL kept.
            let fresh = try await ClusterNode(database: postgres.url)
            try await expectKept(producers, on: nodes + [fresh], since: start)
            try await expectSameAsPostgres(producers, on: nodes + [fresh], postgres: postgres)
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
            // B's create took an index A had for another alert: A does not show it in that one's place.
            #expect(try await a.request("GET", "/v1/alerts/\(made)").status == 404)
            #expect(try await a.index() == shown, "A applied nothing more")
            await b.stop()
        }
    }
}
