import Foundation
import HTTPTestSupport
import Testing

/// `make cluster` (scripts/cluster.sh) as docs/CLUSTER.md has a newcomer try it: its ports
/// checked before it starts, and a failover that can be tried by killing an instance.
@Suite("Cluster: make cluster", .spawnsProcesses, .serialized)
struct ClusterScriptTests {
    static let script = ScratchPostgres.root + "/scripts/cluster.sh"

    @Test("A port in use is named before anything starts, rather than probing another server")
    func portInUse() async throws {
        let base = try freePorts(4)
        let taken = try Listener(port: base + 2)  // where instance 2 would listen
        defer { taken.close() }
        let directory = NSTemporaryDirectory() + "alertd-cluster-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let child = try ChildProcess(Self.script, [], environment: environment(base: base, directory: directory))
        let status = await Self.finish(child, within: 20)
        #expect(status == 1)
        let named = "port \(base + 2) on 127.0.0.1, for alertd 2 (CLUSTER_PORT + 2), is in use"
        #expect(child.standardError.contains(named), "\(child.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory), "nothing was started")
    }

    @Test("An instance killed leaves the others serving through nginx; Ctrl-C stops everything")
    func killOneInstance() async throws {
        let base = try freePorts(4)
        let directory = NSTemporaryDirectory() + "alertd-cluster-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let child = try ChildProcess(Self.script, [], environment: environment(base: base, directory: directory))
        do {
            try await failover(child, base: base, directory: directory)
        } catch {
            _ = await Self.finish(child, within: 0)
            throw error
        }
        child.send(SIGINT)
        #expect(await Self.finish(child, within: 60) == 0)
        #expect(child.standardOutput.contains("cluster: stopped"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/pg/data/postmaster.pid"), "PostgreSQL stopped")
    }

    /// Kills instance 1 of the cluster `child` runs, and creates through nginx on `base` after it.
    private func failover(_ child: ChildProcess, base: Int, directory: String) async throws {
        let deadline = Date().addingTimeInterval(TestTime.bound(90))
        while !child.standardOutput.contains("cluster: serving") {
            guard child.isRunning, Date() < deadline else {
                let why = child.isRunning ? "not serving after 90 s" : "the script exited"
                Issue.record("make cluster: \(why)\n\(child.standardOutput)\(child.standardError)\(Self.logs(directory))")
                throw RawHTTPError(description: "make cluster did not serve")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        let pidText = try String(contentsOfFile: directory + "/alertd-1.pid", encoding: .utf8)
        let instance = try #require(pid_t(pidText.trimmingCharacters(in: .whitespacesAndNewlines)))
        kill(instance, SIGKILL)
        try await eventually("the script says alertd 1 exited") {
            child.standardError.contains("alertd 1 (127.0.0.1:\(base + 1)) exited")
        }
        #expect(child.isRunning, "the cluster goes on")
        for number in 0..<6 {  // round the three upstreams: the dead one's requests go to the next
            let created = try await RawHTTP.exchange(
                RawHTTP.request("POST", "/v1/alerts", headers: [("Content-Type", "application/json")],
                                body: Array(ClusterNode.draft("after the kill \(number)").utf8)),
                port: base, timeout: TestTime.bound(20))
            #expect(created.status == 201, "\(created)")
        }
    }

    /// Waits `seconds` for the script to exit; then stops it with SIGTERM, so that it stops what it started (its
    /// trap), and waits for that.
    private static func finish(_ child: ChildProcess, within seconds: Double) async -> Int32? {
        let deadline = Date().addingTimeInterval(TestTime.bound(seconds))
        while child.isRunning, Date() < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        guard child.isRunning else { return await child.wait(timeout: TestTime.bound(5)) }
        child.send(SIGTERM)
        _ = await child.wait(timeout: TestTime.bound(60))
        return nil
    }

    /// The script's settings: nginx on `base`, the instances on the next three, PostgreSQL on a free port of its own.
    private func environment(base: Int, directory: String) throws -> [String: String] {
        ProcessInfo.processInfo.environment.merging([
            "CLUSTER_DIR": directory, "CLUSTER_PORT": String(base), "CLUSTER_PG_PORT": String(try freePorts(1)),
            "ALERTD": AlertdProcess.executable,
        ]) { $1 }
    }

    /// The first of `count` consecutive ports nothing listens on now.
    /// The ends of the instances', PostgreSQL's and nginx's logs, for a failure's message.
    private static func logs(_ directory: String) -> String {
        ["alertd-1.log", "alertd-2.log", "alertd-3.log", "pg/postgres.log", "nginx-error.log"].compactMap { name in
            (try? String(contentsOfFile: directory + "/" + name, encoding: .utf8)).map { "--- \(name):\n\($0.suffix(2000))" }
        }.joined(separator: "\n")
    }

    /// `count` consecutive ports free now, below the kernel's ephemeral range (32768 up), where any test's outgoing
    /// connection could take one between this check and the script's listen.
    private func freePorts(_ count: Int) throws -> Int {
        for _ in 0..<100 {
            let first = Int.random(in: 20000..<32000)
            if (first..<first + count).allSatisfy({ (try? Listener(port: $0))?.close() != nil }) { return first }
        }
        throw RawHTTPError(description: "no \(count) free consecutive ports")
    }
}

/// A socket listening on 127.0.0.1:`port` (a port taken by someone else).
private struct Listener {
    let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        guard Loopback.withAddress(port: port, { bind(fd, $0, $1) }) == 0, listen(fd, 8) == 0 else {
            Glibc.close(fd)
            throw RawHTTPError(description: "port \(port) is taken")
        }
    }

    func close() {
        Glibc.close(fd)
    }
}
