import Foundation
import Testing

@Suite("alertctl usage, help and exit codes", .spawnsProcesses)
struct AlertctlUsageTests {
    @Test("alertctl --help lists the commands and the exit codes")
    func topLevelHelp() async throws {
        for arguments in [["--help"], ["-h"], ["help"]] {
            let output = try await AlertctlProcess.run(arguments)
            #expect(output.status == 0, "\(output)")
            for word in ["alert", "get", "wait", "answer", "dismiss", "list", "watch", "rules", "dashboard", "demo", "--url"] {
                #expect(output.stdout.contains(word))
            }
            #expect(output.stdout.contains("Exit status"))
            #expect(output.stdout.contains("3  cannot reach alertd"))
        }
    }

    @Test(
        "--help works on each command",
        arguments: ["alert", "post", "get", "wait", "answer", "dismiss", "list", "watch", "rules"])
    func commandHelp(_ command: String) async throws {
        let output = try await AlertctlProcess.run([command, "--help"])
        #expect(output.status == 0, "\(output)")
        #expect(output.stdout.hasPrefix("Usage: alertctl "))
        #expect(output.stdout.contains("--url URL"))
        let viaHelp = try await AlertctlProcess.run(["help", command])
        #expect(viaHelp.stdout == output.stdout)
    }

    @Test("usage errors exit 2 with a message and a hint to --help", arguments: [
        [] as [String], ["frobnicate"], ["get"], ["get", "a", "b"], ["alert"], ["alert", "x", "--buton", "OK"],
        ["alert", "x", "--style", "popover"], ["alert", "x", "--tag", "many"], ["alert", "x", "--timeout", "-1"],
        ["alert", "x", "--timeout", "5x"], ["alert", "x", "--timeout", "30m1h"], ["wait", "id", "--timeout", "0s"],
        // Longer than a `Duration` holds: refused, not a trap.
        ["wait", "id", "--timeout", "1e300"], ["alert", "x", "--wait", "--timeout", "3651d"],
        ["alert", "x", "--title", "y"], ["answer", "id"], ["answer", "id", "--button", "OK", "--index", "1"],
        ["answer", "id", "--index", "one"], ["list", "--state", "sideways"], ["list", "--limit"],
        ["list", "--limit", "0"], ["list", "--limit", "1001"],
        ["--url", "ftp://example.com", "list"], ["list", "--url", "not a url"],
        // An empty `--flag=` value is the empty string, never the next argument: each of these is refused.
        ["--url=", "list"], ["list", "--url="], ["dashboard", "--url="], ["list", "--limit=", "--json"],
        ["alert", "x", "--timeout=", "--wait"], ["alert", "x", "--tag="], ["answer", "id", "--index=", "--json"],
        ["wait", "id", "--timeout="], ["list", "--state=", "all"], ["alert", "x", "--style="],
    ])
    func usageErrors(_ arguments: [String]) async throws {
        let output = try await AlertctlProcess.run(arguments)
        #expect(output.status == 2, "\(arguments): \(output)")
        #expect(output.stderr.hasPrefix("alertctl"))
        #expect(output.stderr.contains("--help"))
        #expect(output.stdout.isEmpty)
    }

    @Test("a mistyped command or option exits 2 naming the nearest one")
    func suggestions() async throws {
        let cases: [([String], String)] = [
            (["lst"], "unknown command 'lst' (did you mean 'list'?)"),
            (["dashbaord"], "unknown command 'dashbaord' (did you mean 'dashboard'?)"),
            (["list", "--presnter", "ops"], "unknown option '--presnter' (did you mean '--presenter'?)"),
            (["alert", "x", "--buton", "OK"], "unknown option '--buton' (did you mean '--button'?)"),
            (["--ulr", "http://127.0.0.1:1", "list"], "unknown option '--ulr' (did you mean '--url'?)"),
        ]
        for (arguments, message) in cases {
            let output = try await AlertctlProcess.run(arguments)
            #expect(output.status == 2 && output.stderr.contains(message), "\(arguments): \(output)")
        }
        let far = try await AlertctlProcess.run(["frobnicate"])
        #expect(far.stderr.contains("unknown command 'frobnicate'\n"), "\(far)")
    }

    @Test("an unreachable server exits 3 with a clear message", arguments: [
        ["list"], ["alert", "x"], ["alert", "x", "--wait"], ["get", "id"], ["wait", "id"],
        ["answer", "id", "--index", "0"], ["dismiss", "id"], ["watch"], ["rules", "list"],
    ])
    func unreachable(_ arguments: [String]) async throws {
        let output = try await AlertctlProcess.run(["--url", "http://127.0.0.1:1"] + arguments)
        #expect(output.status == 3, "\(arguments): \(output)")
        #expect(output.stderr.contains("cannot reach alertd at http://127.0.0.1:1"))
    }

    @Test("--version prints the version and the git revision alertctl was built from")
    func version() async throws {
        let output = try await AlertctlProcess.run(["--version"])
        #expect(output.status == 0, "\(output)")
        let line = output.stdout.trimmingCharacters(in: .newlines)
        let version = try String(contentsOf: packageRoot.appending(path: "VERSION"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(line.hasPrefix("alertctl \(version) (git "), "\(line)")
        let revision = line.split(separator: "(git ").last.map { String($0.dropLast()) } ?? ""
        #expect(revision == "unknown" || (revision.count >= 7 && revision.allSatisfy(\.isHexDigit)), "\(line)")
    }

    @Test("An empty --flag= is an empty value: --message= leaves the message empty and --button still counts")
    func emptyInlineValue() async throws {
        try await AlertctlServer.with { server in
            let output = try await server.alertctl("alert", "Title", "--message=", "--button", "OK")
            #expect(output.status == 0, "\(output)")
            let alert = try await server.alert(try #require(output.lines.first))
            #expect(alert["message"] as? String == "")
            #expect((alert["buttons"] as? [[String: Any]])?.map { $0["title"] as? String } == ["OK"])
        }
    }

    @Test("--url may come before or after the command, as --url=URL too")
    func urlPlacement() async throws {
        try await AlertctlServer.with { server in
            let placements = [
                ["--url", server.url, "list"], ["list", "--url", server.url], ["--url=\(server.url)", "list"],
            ]
            for arguments in placements {
                let output = try await AlertctlProcess.run(arguments)
                #expect(output.status == 0, "\(arguments): \(output)")
            }
        }
    }
}

/// The package's top-level directory (where `VERSION` is).
private let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
