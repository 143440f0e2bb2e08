import Foundation
import HTTPTestSupport
import Testing

/// The README's "Try it", run as printed (only the address is this server's) with bash and curl against a fresh
/// alertd: each command must answer what the README shows after it, ids and times aside.
@Suite("README: the Try it walk-through", .enabled(if: Walkthrough.hasCurl, "needs curl on PATH"))
struct WalkthroughTests {
    @Test("Run as printed, the walk-through's commands answer what the README shows", .timeLimit(.minutes(2)))
    func tryIt() async throws {
        let steps = try Walkthrough.steps()
        try #require(steps.count == 7, "Try it has \(steps.count) commands: \(steps.map(\.code))")
        try #require(steps[0].code == "make run\n")
        try await LiveAlertd.with { server in
            let address = server.url.absoluteString
            let at = { (code: String) in code.replacingOccurrences(of: "http://127.0.0.1:8080", with: address) }
            // Shell 2: create the login alert, print it and its id, then long-poll its response.
            let shell2 = try ChildProcess("/bin/bash", ["-c", at(steps[1].code + steps[2].code)])
            #expect(try await TestTime.until { lineCount(shell2) >= 2 }, "\(shell2.standardError)")
            await server.waitForWaiters(1)
            let created = shell2.standardOutput.components(separatedBy: "\n")
            try Walkthrough.expect(created[0], looksLike: try #require(steps[1].shown), step: "create")
            let id = created[1]
            #expect(id == (try Walkthrough.object(created[0]))["id"] as? String)
            // Shell 3: the id pasted, answer it.
            let placeholder = "ID=paste-the-id-here"
            try #require(steps[3].code.contains(placeholder))
            let pasted = steps[3].code.replacingOccurrences(of: placeholder, with: "ID=\(id)")
            let answer = try await Walkthrough.run(at(pasted))
            try Walkthrough.expect(answer, looksLike: try #require(steps[3].shown), step: "answer")
            #expect(await shell2.wait(timeout: TestTime.bound(30)) == 0, "\(shell2.standardError)")
            let polled = shell2.standardOutput.components(separatedBy: "\n").dropFirst(2).joined()
            #expect(polled == answer.trimmingCharacters(in: .newlines), "the long poll returns the same Result")
            // Still in one shell (the dismissal's ID2 is used by the late answer): list, dismiss, answer too late.
            let separator = "\necho; echo '@@ next'\n"
            let rest = try await Walkthrough.run(at(steps[4...].map(\.code).joined(separator: separator)))
                .components(separatedBy: "\n@@ next\n")
            try #require(rest.count == 3, "\(rest)")
            for (output, (step, name)) in zip(rest, zip(steps[4...], ["list", "dismiss", "late answer"])) {
                try Walkthrough.expect(output, looksLike: try #require(step.shown), step: name)
            }
        }
    }

    private func lineCount(_ child: ChildProcess) -> Int {
        child.standardOutput.filter { $0 == "\n" }.count
    }
}

/// The commands of the README's "Try it" and what it shows each answers.
enum Walkthrough {
    static let hasCurl = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        .contains { FileManager.default.isExecutableFile(atPath: "\($0)/curl") }

    /// Each ```sh block of "## Try it", and the output block (```json or ```) that follows it before the next one.
    static func steps() throws -> [(code: String, shown: String?)] {
        let section = try Docs.section("## Try it", of: Docs.read("README.md")).components(separatedBy: "\n")
        var steps: [(code: String, shown: String?)] = []
        var block: (fence: String, lines: [String])?
        for line in section {
            if var open = block {
                if line == "```" {
                    let text = open.lines.map { $0 + "\n" }.joined()
                    if open.fence == "```sh" {
                        steps.append((text, nil))
                    } else if let last = steps.indices.last, steps[last].shown == nil {
                        steps[last].shown = text
                    }
                    block = nil
                } else {
                    open.lines.append(line)
                    block = open
                }
            } else if line.hasPrefix("```") {
                block = (line, [])
            }
        }
        return steps
    }

    /// Standard output of `script` run by bash, which must exit 0.
    static func run(_ script: String) async throws -> String {
        let child = try ChildProcess("/bin/bash", ["-c", script])
        let status = await child.wait(timeout: TestTime.bound(30))
        #expect(status == 0, "\(script)\n\(child.standardError)")
        return child.standardOutput
    }

    static func object(_ text: String) throws -> [String: Any] {
        let value = try JSONSerialization.jsonObject(with: Data(text.utf8))
        return try #require(value as? [String: Any], "not an object: \(text)")
    }

    /// Checks each line of `output` against the line `shown` has there: JSON as JSON (see `matches`), other
    /// lines (a status code) as they are.
    static func expect(_ output: String, looksLike shown: String, step: String) throws {
        let actual = output.trimmingCharacters(in: .newlines).components(separatedBy: "\n")
        let expected = shown.trimmingCharacters(in: .newlines).components(separatedBy: "\n")
        #expect(actual.count == expected.count, "\(step): \(output) against the README's \(shown)")
        for (line, shownLine) in zip(actual, expected) {
            guard shownLine.hasPrefix("{") else {
                #expect(line == shownLine, "\(step): \(line), the README shows \(shownLine)")
                continue
            }
            #expect(matches(try object(line), try object(shownLine)), "\(step): \(line)\nthe README: \(shownLine)")
        }
    }

    /// Whether `actual` is what `shown` shows: the same members and items, and the same values, except that a string
    /// shown with `…` (an id, a detail) or as a time stands for any string.
    static func matches(_ actual: Any, _ shown: Any) -> Bool {
        switch (actual, shown) {
        case let (actual as [String: Any], shown as [String: Any]):
            return Set(actual.keys) == Set(shown.keys)
                && shown.allSatisfy { key, value in actual[key].map { matches($0, value) } ?? false }
        case let (actual as [Any], shown as [Any]):
            return actual.count == shown.count && zip(actual, shown).allSatisfy(matches)
        case let (actual as String, shown as String):
            let time = #/\d{4}-\d\d-\d\dT[\d:.]+Z/#
            return actual == shown || shown.contains("…") || shown.wholeMatch(of: time) != nil
        case (is NSNull, is NSNull):
            return true
        case let (actual as NSNumber, shown as NSNumber):
            return actual == shown
        default:
            return false
        }
    }
}
