import Foundation
import HTTPTestSupport
import Testing

/// A real PostgreSQL in a temporary directory on a free port (scripts/scratch-postgres.sh: initdb, pg_ctl), started by
/// the test and stopped by it. The data directory is copied from one template made once per test process, since
/// initdb is the slow part.
final class ScratchPostgres: Sendable {
    let directory: String
    let port: Int

    /// The repository root, from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path
    static let script = root + "/scripts/scratch-postgres.sh"

    /// The template data directory, made once per PostgreSQL version and kept in the temporary directory for later
    /// runs (made aside, then renamed into place, so that test processes running at once never see half of one).
    private static let template = Task<String, any Error> {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        let version = versions.compactMap { Int($0) }.max().map(String.init) ?? "unknown"
        let kept = NSTemporaryDirectory() + "alertd-pg-template-\(version)"
        if FileManager.default.fileExists(atPath: kept + "/data/PG_VERSION") { return kept }
        let directory = try temporaryDirectory("alertd-pg-template-new")
        try await run(["init", directory])
        if rename(directory, kept) != 0 { try? FileManager.default.removeItem(atPath: directory) }
        return kept
    }

    /// `postgresql://alertd@127.0.0.1:port/postgres`.
    var url: String { "postgresql://alertd@127.0.0.1:\(port)/postgres" }

    private init(directory: String, port: Int) {
        self.directory = directory
        self.port = port
    }

    /// Starts a fresh cluster.
    static func start() async throws -> ScratchPostgres {
        let template = try await template.value
        let directory = try temporaryDirectory("alertd-pg")
        try await run(["/bin/cp", "-a", template + "/data", directory + "/data"], script: false)
        let postgres = ScratchPostgres(directory: directory, port: try freePort())
        try await postgres.start()
        return postgres
    }

    /// Starts this cluster (again).
    func start() async throws {
        try await Self.run(["start", directory, String(port)])
    }

    /// Stops it: connections are cut; what committed stays.
    func stop() async throws {
        try await Self.run(["stop", directory])
    }

    /// Stops it if it runs, and removes its files.
    func remove() async {
        try? await stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    private static func run(_ arguments: [String], script: Bool = true) async throws {
        let command = script ? [Self.script] + arguments : arguments
        let child = try ChildProcess(command[0], Array(command.dropFirst()),
                                     environment: ProcessInfo.processInfo.environment.merging(
                                        ["PG_OPTIONS": "-c fsync=off -c max_connections=50"]) { $1 })
        let status = await child.wait(timeout: TestTime.bound(60))
        guard status == 0 else {
            throw RawHTTPError(description: "\(command.joined(separator: " ")) failed: \(child.standardError)")
        }
    }

    /// A new directory under the temporary directory that the `postgres` user can reach.
    private static func temporaryDirectory(_ prefix: String) throws -> String {
        let path = NSTemporaryDirectory() + "\(prefix)-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o755])
        return path
    }

    /// A port nothing listens on now (the kernel's pick for port 0).
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw RawHTTPError(description: "no free port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
