import Foundation
import HTTPTestSupport
import Testing

/// What `alertd --database` refuses at start, with a message that says why.
@Suite("Cluster: start")
struct ClusterStartTests {
    @Test("--data-dir with --database is refused: one instance journals, several share PostgreSQL")
    func dataDirAndDatabase() async throws {
        let child = try ChildProcess(ClusterNode.executable, [
            "--port", "0", "--data-dir", "/tmp/unused", "--database", "postgresql://alertd@127.0.0.1:1/postgres",
        ])
        #expect(await child.wait(timeout: TestTime.bound(10)) == 64)
        #expect(child.standardError.contains("--data-dir (ALERTD_DATA_DIR) and --database (ALERTD_DATABASE) cannot both"))
    }

    @Test("A database that cannot be reached at start is named (without its password) and alertd exits 1")
    func unreachableAtStart() async throws {
        let child = try ChildProcess(ClusterNode.executable, [
            "--port", "0", "--database", "postgresql://alertd:secret@127.0.0.1:1/postgres",
        ])
        #expect(await child.wait(timeout: TestTime.bound(20)) == 1)
        #expect(child.standardError.contains("cannot use the PostgreSQL database postgresql://alertd:***@127.0.0.1:1"))
        #expect(!child.standardError.contains("secret"))
    }

    @Test("A URL that is not postgresql:// is refused with the flag's help")
    func notAURL() async throws {
        let child = try ChildProcess(ClusterNode.executable, ["--port", "0", "--database", "mysql://x"])
        #expect(await child.wait(timeout: TestTime.bound(10)) == 64)
        #expect(child.standardError.contains("--database 'mysql://x' is not valid"))
    }
}
