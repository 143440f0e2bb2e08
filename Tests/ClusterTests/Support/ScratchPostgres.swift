import Foundation
import HTTPTestSupport
import Testing

/// A real PostgreSQL in a temporary directory on a free port (scripts/scratch-postgres.sh: initdb, pg_ctl), started by
/// the test and stopped by it. The data directory is copied from one template made once per test process, since
/// initdb is the slow part.
final class ScratchPostgres: Sendable {
    let directory: String
    let port: Int
    /// Server settings beyond the tests' own (`-c name=value …`), at every start.
    let options: String

    /// How `crash(_:)` takes PostgreSQL down.
    enum Crash: String, CaseIterable, CustomTestStringConvertible {
        /// `pg_ctl stop -m immediate`: no flush, no checkpoint; the next start replays the WAL.
        case immediate = "crash"
        /// SIGKILL of the postmaster; its processes follow it.
        case killPostmaster = "kill"

        var testDescription: String { self == .immediate ? "pg_ctl stop -m immediate" : "SIGKILL of the postmaster" }
    }

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

    private init(directory: String, port: Int, options: String) {
        self.directory = directory
        self.port = port
        self.options = options
    }

    /// Starts a fresh cluster with `options` (`-c name=value …`) added to the tests' settings.
    static func start(options: String = "") async throws -> ScratchPostgres {
        let template = try await template.value
        let directory = try temporaryDirectory("alertd-pg")
        try await run(["/bin/cp", "-a", template + "/data", directory + "/data"], script: false)
        let postgres = ScratchPostgres(directory: directory, port: try freePort(), options: options)
        try await postgres.start()
        return postgres
    }

    /// Starts this cluster (again).
    func start() async throws {
        try await Self.run(["start", directory, String(port)], options: options)
    }

    /// Stops it: connections are cut; what committed stays.
    func stop() async throws {
        try await Self.run(["stop", directory])
    }

    /// Takes it down as a crash would: what is not in the WAL on disk (or in the kernel's cache: the tests run with
    /// `fsync` off, and PostgreSQL alone crashes, not the machine) is gone.
    func crash(_ how: Crash) async throws {
        try await Self.run([how.rawValue, directory])
    }

    /// Runs SQL with psql as the `alertd` superuser; returns what it printed (unaligned, tuples only).
    @discardableResult
    func sql(_ text: String) async throws -> String {
        let child = try session(text)
        let status = await child.wait(timeout: TestTime.bound(30))
        guard status == 0 else { throw RawHTTPError(description: "psql \(text) failed: \(child.standardError)") }
        return child.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Stops it if it runs, and removes its files.
    func remove() async {
        try? await stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Starts psql running `text` as the `alertd` superuser, and returns at once (a session that holds a lock).
    func session(_ text: String) throws -> ChildProcess {
        let psql = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql"))?
            .compactMap { Int($0) }.max().map { "/usr/lib/postgresql/\($0)/bin/psql" } ?? "psql"
        return try ChildProcess(psql, ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1",
                                       "-p", String(port), "-U", "alertd", "-d", "postgres", "-c", text])
    }

    private static func run(_ arguments: [String], script: Bool = true, options: String = "") async throws {
        let command = script ? [Self.script] + arguments : arguments
        let child = try ChildProcess(command[0], Array(command.dropFirst()),
                                     environment: ProcessInfo.processInfo.environment.merging(
                                        ["PG_OPTIONS": "-c fsync=off -c max_connections=50 \(options)"]) { $1 })
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
