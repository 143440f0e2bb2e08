import Foundation
import HTTPTestSupport
import JSON
import Testing

/// A producer waiting for an answer while alertd is SIGKILLed and restarted gets the answer once it is back.
@Suite("Long-polling across a restart", .spawnsProcesses)
struct LongPollRestartTests {
    @Test("alertctl wait reconnects after a SIGKILL and gets the answer given to the restarted alertd")
    func alertctlWait() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let server = AlertdProcess(dataDirectory: scratch.appending("data"), arguments: ["--access-log", "off"])
        try await server.start()
        let created = try await server.send("POST", "/v1/alerts",
                                            body: #"{"title":"Deploy?","buttons":["Cancel","Deploy"]}"#)
        let id = try #require(created.status == 201 ? created.json["id"]?.stringValue : nil, "\(created)")

        let alertctl = BuiltProduct.path("alertctl")
        try #require(FileManager.default.isExecutableFile(atPath: alertctl), "build alertctl first (swift build)")
        let waiting = try ChildProcess(alertctl, ["--url", "http://127.0.0.1:\(server.port)", "wait", id, "--json"],
                                       environment: AlertdProcess.environment(adding: [:]))
        defer { waiting.send(SIGKILL) }
        // alertctl is in its long-poll once alertd counts a waiter.
        try await eventually("alertctl's long-poll to reach alertd", within: 20) {
            let metrics = try await server.send("GET", "/metrics").text
            return metrics.split(separator: "\n").contains { $0.hasPrefix("alertd_waiters ") && !$0.hasSuffix(" 0") }
        }

        try await server.kill()
        let port = server.port
        try await server.start()
        try #require(server.port == port, "alertd came back on another port (\(server.port)): alertctl cannot follow")
        #expect(waiting.isRunning, "alertctl gave up while alertd was away: \(waiting.standardError)")
        let answered = try await server.send("POST", "/v1/alerts/\(id)/response", body: #"{"button":"Deploy"}"#)
        #expect(answered.status == 200, "\(answered)")

        let status = await waiting.wait(timeout: TestTime.bound(30))
        #expect(status == 0, "alertctl wait: exit \(status.map(String.init) ?? "none"); \(waiting.standardError)")
        let result = try? JSONParser.parse(Array(waiting.standardOutput.utf8))
        #expect(result?["buttonTitle"]?.stringValue == "Deploy", "alertctl printed '\(waiting.standardOutput)'")
        #expect(result?["resolution"]?.stringValue == "answered", "alertctl printed '\(waiting.standardOutput)'")
        await server.stop()
    }
}
