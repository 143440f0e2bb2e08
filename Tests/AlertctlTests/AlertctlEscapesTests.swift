import Foundation
import Testing

/// A producer's (or responder's) control characters never reach the terminal of whoever runs alertctl.
@Suite("alertctl shows control characters escaped")
struct AlertctlEscapesTests {
    /// Sets the window title, clears the screen, returns to the line start to overwrite it, conceals text.
    private static let hostileTitle = #"Deploy\u001b]0;pwned\u0007\u001b[2J\rDeploy approved\b\b\u001b[8mhidden\u009b"#
    private static let hostile = #"{"title":""# + hostileTitle + #"","message":"line one\nstate: answered","#
        + #""buttons":["Cancel","Go\u001b[1A"],"fields":[{"placeholder":"Note\u202e"}]}"#

    /// What a terminal could take as a command: C0 controls but the line breaks, DEL, C1, bidi overrides.
    private static func controls(in text: String) -> [Unicode.Scalar] {
        text.unicodeScalars.filter { scalar in
            scalar != "\n" && (scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
                || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value))
        }
    }

    @Test("list, watch, get and wait print ESC, BEL, backspace, CR and newlines visibly escaped; --json stays exact")
    func escaped() async throws {
        try await AlertctlServer.with { server in
            let id = try await server.create(Self.hostile)
            let pending = try await server.alertctl("list")
            #expect(pending.status == 0, "\(pending)")
            #expect(Self.controls(in: pending.stdout).isEmpty, "\(pending)")
            #expect(pending.stdout.contains(#"Deploy\e]0;pwned\a\e[2J Deploy approved\b\b\e[8mhid"#), "\(pending)")
            #expect(pending.lines.count == 2, "one header, one alert: \(pending)")

            let watching = try server.start("watch")
            try await watching.waitForOutput(containing: #"pwned\a\e[2J"#)
            watching.interrupt()
            let watched = try await watching.finish()
            #expect(Self.controls(in: watched.stdout).isEmpty, "\(watched)")

            let text = try await server.alertctl("get", id)
            #expect(Self.controls(in: text.stdout).isEmpty, "\(text)")
            #expect(text.stdout.contains(#"\e[2J\rDeploy approved\b\b\e[8mhidden\u{9B}"#), "\(text)")
            #expect(text.stdout.contains(#"Go\e[1A"#) && text.stdout.contains(#"Note\u{202E}"#), "\(text)")
            // The message's newline does not start a forged "state:" line.
            let states = text.lines.filter { $0.hasPrefix("state:") }
            #expect(states.count == 1 && states[0].hasSuffix(" pending"), "\(text)")
            #expect(text.stdout.contains(#"line one\nstate: answered"#), "\(text)")

            try await server.answer(id, #"{"button":"Go\u001b[1A","values":["ok\u001b[2K\nsecond"]}"#)
            let waited = try await server.alertctl("wait", id)
            #expect(waited.status == 0, "\(waited)")
            #expect(waited.lines == [#"Go\e[1A"#, #"ok\e[2K\nsecond"#], "\(waited)")
            let resolved = try await server.alertctl("list", "--state", "resolved")
            #expect(Self.controls(in: resolved.stdout).isEmpty && resolved.stdout.contains(#"answered: Go\e[1A"#))

            // --json is exact JSON: the control characters are there, as JSON escapes them.
            let json = try await server.alertctl("get", id, "--json")
            #expect(Self.controls(in: json.stdout.replacingOccurrences(of: "\u{9B}", with: "")
                .replacingOccurrences(of: "\u{202E}", with: "")).isEmpty, "\(json)")
            #expect((json.json?["title"] as? String)?.contains("\u{1B}]0;pwned\u{07}") == true, "\(json)")
            let result = try #require(json.json?["result"] as? [String: Any])
            #expect(result["values"] as? [String] == ["ok\u{1B}[2K\nsecond"])
        }
    }
}
