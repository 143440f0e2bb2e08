@testable import AlertAPI
import Foundation
import HTTPTestSupport
import Testing

/// The real binary: SIGHUP reloads the tokens file, and a tokens file or `ALERTD_TOKENS` without tokens stops
/// start-up.
@Suite("Access control: reloading tokens and start-up errors", .spawnsProcesses)
struct TokenReloadTests {
    static let first = "first-producer-token-01"
    static let second = "second-producer-token-02"
    static let third = "third-producer-token-003"

    /// A tokens file in the temporary folder, replaced atomically (written beside it, then renamed over it).
    struct TokensFile {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("alertd-tokens-\(UUID()).txt")

        func write(_ text: String) throws {
            try text.write(to: url, atomically: true, encoding: .utf8)
        }

        func remove() {
            try? FileManager.default.removeItem(at: url)
        }
    }

    static func status(_ token: String, port: Int) async throws -> Int {
        let request = RawHTTP.request("GET", "/v1/alerts", headers: [("Authorization", "Bearer \(token)")])
        return try await RawHTTP.exchange(request, port: port).status
    }

    /// Waits until alertd's standard error holds `text`; fails the test when it never does.
    static func waitForLog(_ alertd: AlertdProcess, _ text: String,
                           sourceLocation: SourceLocation = #_sourceLocation) async throws {
        if await TestTime.until(every: .milliseconds(20), { alertd.standardError.contains(text) }) { return }
        Issue.record("alertd never logged '\(text)': \(alertd.standardError.suffix(2000))",
                     sourceLocation: sourceLocation)
    }

    @Test("SIGHUP reloads the tokens file: a new token works, a removed one is refused, alertd keeps serving")
    func reload() async throws {
        let file = TokensFile()
        defer { file.remove() }
        try file.write("# producers\nfirst:producer:\(Self.first)\nsecond:producer:\(Self.second)\n")
        let alertd = try await AlertdProcess.start(arguments: ["--tokens-file", file.url.path])
        #expect(try await Self.status(Self.first, port: alertd.port) == 200)
        #expect(try await Self.status(Self.third, port: alertd.port) == 401)
        // A long-poll in flight across the reload is answered, not cut off.
        async let waiting = RawHTTP.exchange(RawHTTP.request(
            "GET", "/v1/alerts?index=1000000&wait=2", headers: [("Authorization", "Bearer \(Self.second)")]),
            port: alertd.port)

        try file.write("second:producer:\(Self.second)\nthird:producer:\(Self.third)\n")
        alertd.send(SIGHUP)
        try await Self.waitForLog(alertd, "SIGHUP: reloaded the tokens file")
        #expect(alertd.isRunning, "SIGHUP must not end alertd: \(alertd.standardError.suffix(500))")
        #expect(try await Self.status(Self.third, port: alertd.port) == 200, "the new token works")
        #expect(try await Self.status(Self.first, port: alertd.port) == 401, "the removed token is refused")
        #expect(try await Self.status(Self.second, port: alertd.port) == 200, "a kept token still works")
        #expect(try await waiting.status == 200)
        #expect(alertd.standardError.contains(#""tokens":"2""#))

        alertd.send(SIGTERM)
        #expect(try await alertd.exitStatus(timeout: 15) == 0)
        for token in [Self.first, Self.second, Self.third] { #expect(!alertd.standardError.contains(token)) }
    }

    @Test("a bad or empty file on SIGHUP keeps the tokens in force and logs why", arguments: [
        ("third:boss:\(TokenReloadTests.third)\n", "line 1: the role of 'third' must be"),
        ("# all gone\n\n", "holds no tokens"),
    ])
    func badReload(file text: String, reason: String) async throws {
        let file = TokensFile()
        defer { file.remove() }
        try file.write("first:producer:\(Self.first)\n")
        let alertd = try await AlertdProcess.start(arguments: ["--tokens-file", file.url.path])
        try file.write(text)
        alertd.send(SIGHUP)
        try await Self.waitForLog(alertd, "SIGHUP: kept the tokens in force")
        #expect(alertd.standardError.contains(reason), "\(alertd.standardError.suffix(1000))")
        #expect(alertd.isRunning)
        #expect(try await Self.status(Self.first, port: alertd.port) == 200, "the old token still works")
        #expect(try await Self.status(Self.third, port: alertd.port) == 401, "the bad file's token does not")
        #expect(!alertd.standardError.contains(Self.third))

        // A good file afterwards is taken.
        try file.write("third:producer:\(Self.third)\n")
        alertd.send(SIGHUP)
        try await Self.waitForLog(alertd, "SIGHUP: reloaded the tokens file")
        #expect(try await Self.status(Self.third, port: alertd.port) == 200)
        alertd.send(SIGTERM)
        #expect(try await alertd.exitStatus(timeout: 15) == 0)
    }

    @Test("without a tokens file, SIGHUP logs that there is nothing to reload and alertd stays open")
    func nothingToReload() async throws {
        let alertd = try await AlertdProcess.start()
        alertd.send(SIGHUP)
        try await Self.waitForLog(alertd, "SIGHUP: nothing to reload (no tokens file)")
        #expect(alertd.isRunning)
        let created = try await RawHTTP.exchange(
            RawHTTP.request("POST", "/v1/alerts", body: Array(#"{"message":"still open"}"#.utf8)), port: alertd.port)
        #expect(created.status == 201)
        alertd.send(SIGTERM)
        #expect(try await alertd.exitStatus(timeout: 15) == 0)
    }

    @Test("a tokens file or ALERTD_TOKENS without tokens stops start-up (exit 64) and says so", arguments: [
        ("", nil), ("# only a comment\n\n   \n# and another\n", nil), (nil, ""), (nil, " , ,"),
    ] as [(String?, String?)])
    func noTokens(file text: String?, environment tokens: String?) async throws {
        let file = TokensFile()
        defer { file.remove() }
        var arguments = ["--port", "0"]
        if let text {
            try file.write(text)
            arguments += ["--tokens-file", file.url.path]
        }
        var environment = ProcessInfo.processInfo.environment
        environment["ALERTD_TOKENS"] = tokens
        let child = try await AlertdProcess.run(arguments, environment: environment)
        #expect(child.status == 64, "\(child.standardOutput)")
        #expect(child.standardError.contains("holds no tokens"), "\(child.standardError)")
        #expect(!child.standardOutput.contains("listening on"))
    }

    @Test("--host with a name that does not resolve says so, not that tokens are missing")
    func unresolvableHost() async throws {
        let child = try await AlertdProcess.run(["--host", "nonexistent.invalid", "--port", "0"])
        #expect(child.status == 64)
        #expect(child.standardError.contains("cannot listen on 'nonexistent.invalid'"), "\(child.standardError)")
        #expect(child.standardError.contains("does not resolve"))
        #expect(!child.standardError.contains("without access tokens"))
    }
}
