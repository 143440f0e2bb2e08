import Foundation
import HTTPTestSupport
import Testing

/// What `alertd --database` refuses at start, with a message that says why.
@Suite("Cluster: start", .spawnsProcesses)
struct ClusterStartTests {
    @Test("--data-dir with --database is refused: one instance journals, several share PostgreSQL")
    func dataDirAndDatabase() async throws {
        let child = try await AlertdProcess.run([
            "--port", "0", "--data-dir", "/tmp/unused", "--database", "postgresql://alertd@127.0.0.1:1/postgres",
        ], timeout: TestTime.bound(10))
        #expect(child.status == 64)
        #expect(child.standardError.contains("--data-dir (ALERTD_DATA_DIR) and --database (ALERTD_DATABASE) cannot both"))
    }

    @Test("A database that cannot be reached at start is named (without its password) and alertd exits 1")
    func unreachableAtStart() async throws {
        let child = try await AlertdProcess.run([
            "--port", "0", "--database", "postgresql://alertd:secret@127.0.0.1:1/postgres",
        ])
        #expect(child.status == 1)
        #expect(child.standardError.contains("cannot use the PostgreSQL database postgresql://alertd:***@127.0.0.1:1"))
        #expect(!child.standardError.contains("secret"))
    }

    @Test("A URL that is not postgresql:// is refused with the flag's help")
    func notAURL() async throws {
        let child = try await AlertdProcess.run(["--port", "0", "--database", "mysql://x"], timeout: TestTime.bound(10))
        #expect(child.status == 64)
        #expect(child.standardError.contains("--database 'mysql://x' is not valid"))
    }

    @Test("A PostgreSQL running with fsync off is said at start: a power loss could take back what was acknowledged")
    func fsyncOff() async throws {
        // The tests' PostgreSQL runs with fsync off (a crash of PostgreSQL alone loses nothing of what it wrote).
        try await withCluster(instances: 1) { _, nodes in
            let warned = { nodes[0].standardError.split(separator: "\n").filter {
                $0.contains(#""warn""#) && $0.contains("PostgreSQL runs with fsync off")
            } }
            try await eventually("the start says it") { !warned().isEmpty }
            #expect(warned().count == 1, "\(nodes[0].standardError)")
            #expect(!nodes[0].standardError.contains("full_page_writes"), "full_page_writes is on")
        }
    }

    @Test("A database whose alertd tables are damaged is refused at start, naming what is wrong",
          arguments: [
            ("ALTER TABLE alertd_alerts DROP COLUMN draft", "alertd_alerts has no column draft"),
            ("UPDATE alertd_cluster SET head = head - 2", "is behind the last event"),
            ("ALTER TABLE alertd_alerts DROP CONSTRAINT alertd_alerts_owner_key_idempotency_key_key",
             "alertd_alerts_owner_key_idempotency_key_key is missing"),
          ])
    func damagedSchema(_ damage: String, _ said: String) async throws {
        try await withCluster(instances: 1) { postgres, nodes in
            for title in ["one", "two", "three"] { _ = try await nodes[0].create(title) }
            try await postgres.sql(damage)
            let child = try await AlertdProcess.run(["--port", "0", "--database", postgres.url])
            #expect(child.status == 1)
            #expect(child.standardError.contains("its alertd tables are damaged"), "\(child.standardError)")
            #expect(child.standardError.contains(said), "\(child.standardError)")
        }
    }

    @Test("A database of schema version 1 (no rules) is migrated at start: its alerts stay, rules can be made")
    func migratesVersion1() async throws {
        try await withCluster(instances: 1) { postgres, nodes in
            let kept = try await nodes[0].create("kept")
            await nodes[0].stop()
            // What an alertd before rules left: version 1, without alertd_rules and rules_version (nor links).
            try await postgres.sql("DROP TABLE alertd_page_key, alertd_used_links, alertd_notify_outbox")
            try await postgres.sql("DROP FUNCTION alertd_notify_enqueue")
            try await postgres.sql("DROP TABLE alertd_rules")
            try await postgres.sql("ALTER TABLE alertd_cluster DROP COLUMN rules_version")
            try await postgres.sql("UPDATE alertd_schema SET version = 1")
            let node = try await ClusterNode(database: postgres.url)
            let shown = try await node.request("GET", "/v1/alerts/\(kept)")
            #expect(shown.status == 200, "\(shown)")
            let made = try await node.request("POST", "/v1/rules",
                                              json: #"{"name":"all","match":{"title":"*"},"button":"OK"}"#)
            #expect(made.status == 201, "\(made)")
            #expect(try await postgres.sql("SELECT max(version) FROM alertd_schema") == "3")
            #expect(try await postgres.sql("SELECT count(*) FROM alertd_page_key") == "1", "the links' key is made")
            await node.stop()
        }
    }

    @Test("A database of schema version 2 (no links) is migrated at start: its alerts and rules stay, links are kept; an alertd of version 2 then refuses it")
    func migratesVersion2() async throws {
        try await withCluster(instances: 1) { postgres, nodes in
            let kept = try await nodes[0].create("kept")
            let rule = try await nodes[0].request("POST", "/v1/rules",
                                                  json: #"{"name":"all","match":{"title":"never"},"button":"OK"}"#)
            #expect(rule.status == 201, "\(rule)")
            await nodes[0].stop()
            // What an alertd before links in a cluster left: version 2, without the links' tables nor the outbox.
            try await postgres.sql("DROP TABLE alertd_page_key, alertd_used_links, alertd_notify_outbox")
            try await postgres.sql("DROP FUNCTION alertd_notify_enqueue")
            try await postgres.sql("UPDATE alertd_schema SET version = 2")
            let node = try await ClusterNode(database: postgres.url)
            #expect(try await node.request("GET", "/v1/alerts/\(kept)").status == 200)
            #expect(try await node.request("GET", "/v1/rules/all").status == 200)
            #expect(try await postgres.sql("SELECT max(version) FROM alertd_schema") == "3")
            #expect(try await postgres.sql("SELECT count(*) FROM alertd_page_key") == "1")
            await node.stop()
            // A database one version newer than this alertd, as an alertd of version 2 finds one of version 3.
            try await postgres.sql("INSERT INTO alertd_schema (version) VALUES (4)")
            let older = try await AlertdProcess.run(["--port", "0", "--database", postgres.url])
            #expect(older.status == 1)
            #expect(older.standardError.contains(
                "the database has alertd schema version 4, newer than this alertd's (3)"), "\(older.standardError)")
        }
    }
}
