import Foundation
import HTTPTestSupport
import Testing

/// What alertd says at start about keeping alerts, and what `/healthz` says.
@Suite("Start line: whether alerts survive a restart", .spawnsProcesses)
struct StartLineTests {
    @Test("without --data-dir alertd says it is memory only")
    func memoryOnly() async throws {
        let server = AlertdProcess(dataDirectory: nil)
        try await server.start()
        let child = try #require(server.child)
        try await eventually("the line about memory", within: 10) { child.standardOutput.contains("memory only") }
        #expect(child.standardOutput.contains("memory only: alerts do not survive a restart"),
                "\(child.standardOutput)")
        let health = try await server.send("GET", "/healthz")
        #expect(health.status == 200 && health.json["durable"]?.boolValue == false, "\(health)")
        await server.stop()
    }

    @Test("with --data-dir alertd says where it keeps alerts, and not that it is memory only")
    func durable() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.appending("data")
        let server = AlertdProcess(dataDirectory: directory)
        try await server.start()
        let child = try #require(server.child)
        try await eventually("the line about the data dir", within: 10) { child.standardOutput.contains(directory) }
        #expect(!child.standardOutput.contains("memory only"), "\(child.standardOutput)")
        let health = try await server.send("GET", "/healthz")
        #expect(health.status == 200 && health.json["durable"]?.boolValue == true, "\(health)")
        await server.stop()
    }
}
