import AlertClient
import Foundation
import HTTPTestSupport
import Testing

/// The README's Swift snippet, taken from README.md, compiled with swiftc against the AlertClient module this
/// build made, and run against a live alertd: it must wait for each answer before it asks the next question.
@Suite("README: the AlertClient snippet", .enabled(if: ReadmeSnippet.swiftc != nil, "needs swiftc on PATH"))
struct ReadmeSnippetTests {
    @Test("compiled as top-level code, the snippet waits for each answer in turn", .timeLimit(.minutes(2)))
    func topLevel() async throws {
        try await answerInTurn(try await ReadmeSnippet.build(asyncMain: false))
    }

    @Test("compiled inside an async main, the snippet waits for each answer in turn", .timeLimit(.minutes(2)))
    func asyncMain() async throws {
        try await answerInTurn(try await ReadmeSnippet.build(asyncMain: true))
    }

    @Test("each Swift example of docs/ that starts with an import compiles as top-level code",
          .timeLimit(.minutes(4)))
    func docsExamples() async throws {
        let examples = try ReadmeSnippet.docsExamples()
        #expect(examples.count >= 2, "\(examples.map(\.place))")
        for example in examples {
            await #expect(throws: Never.self, "\(example.place)") {
                _ = try await ReadmeSnippet.build(example.text, asyncMain: false)
            }
        }
    }

    /// Runs `program` against a live alertd and answers its three alerts as a responder would, each once it is the
    /// only pending one; then checks each was posted only after the one before it was answered.
    private func answerInTurn(_ program: URL) async throws {
        try await LiveAlertd.with { server in
            var environment = ProcessInfo.processInfo.environment
            environment["ALERTD_URL"] = server.url.absoluteString
            let child = try ChildProcess(program.path, [], environment: environment)
            let responder = server.client()
            var ids: [String] = []
            let questions: [(String, String, [String]?)] = [
                ("Disk full", "OK", nil), ("Photo", "Share", nil), ("Login", "Log in", ["al", "pw"]),
            ]
            for (headline, button, values) in questions {
                let alert = try await pendingAlert(responder)
                // The program waits for this answer (a long-poll the store holds) and has asked nothing else.
                await server.waitForWaiters(1)
                #expect((alert.title.isEmpty ? alert.message : alert.title) == headline, "\(alert)")
                #expect(try await responder.list().alerts.count == 1, "one question at a time")
                _ = try await responder.answer(alert.id, button: button, values: values)
                ids.append(alert.id)
            }
            let status = await child.wait(timeout: 60)
            #expect(status == 0, "stdout: \(child.standardOutput)\nstderr: \(child.standardError)")
            var alerts: [RemoteAlert] = []
            for id in ids { alerts.append(try await responder.alert(id)) }
            #expect(alerts.map { $0.result?.resolution } == ["answered", "answered", "answered"])
            for (answered, next) in zip(alerts, alerts.dropFirst()) {
                let resolvedAt = try #require(answered.result.flatMap { ReadmeSnippet.date($0.resolvedAt) })
                let createdAt = try #require(ReadmeSnippet.date(next.createdAt))
                #expect(createdAt >= resolvedAt, "'\(next.title)' was posted before \(answered.id) was answered")
            }
        }
    }
}

/// The snippet under "## Swift client library" in README.md, the Swift examples of docs/, and how to build them.
enum ReadmeSnippet {
    /// `swiftc` from PATH, else from the toolchain in /opt/swift.
    static let swiftc: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let folders = path.split(separator: ":").map(String.init) + ["/opt/swift/usr/bin"]
        return folders.map { $0 + "/swiftc" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// The first ```swift block of the README's "Swift client library" section, exactly as printed.
    static func text() throws -> String {
        let lines = try Docs.read("README.md").components(separatedBy: "\n")
        let section = try #require(lines.firstIndex { $0.hasPrefix("## Swift client library") })
        let start = try #require(lines[section...].firstIndex(of: "```swift"))
        let end = try #require(lines[(start + 1)...].firstIndex(of: "```"))
        return lines[(start + 1)..<end].joined(separator: "\n") + "\n"
    }

    /// Every ```swift block of docs/ whose first line is an `import` (the others are fragments), with its place.
    static func docsExamples() throws -> [(place: String, text: String)] {
        var examples: [(place: String, text: String)] = []
        for page in try Docs.documents() where page.hasPrefix("docs/") {
            let lines = try Docs.read(page).components(separatedBy: "\n")
            var start: Int?
            for (number, line) in lines.enumerated() {
                if let first = start, line == "```" {
                    if lines[first + 1].hasPrefix("import ") {
                        let text = lines[(first + 1)..<number].joined(separator: "\n") + "\n"
                        examples.append(("\(page):\(first + 1)", text))
                    }
                    start = nil
                } else if start == nil, line == "```swift" {
                    start = number
                }
            }
        }
        return examples
    }

    /// Compiles `snippet` (the README's by default), as the whole of `main.swift` or (`asyncMain`) as the body of an
    /// `@main` type's `static func main() async throws`, linked with the objects of AlertClient and Locking this build
    /// made.
    static func build(_ snippet: String? = nil, asyncMain: Bool) async throws -> URL {
        let snippet = try snippet ?? text()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("readme-snippet-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let source: String
        var arguments = ["-swift-version", "6"]
        if asyncMain {
            let lines = snippet.components(separatedBy: "\n")
            let imports = lines.filter { $0.hasPrefix("import ") }
            let body = lines.filter { !$0.hasPrefix("import ") }.map { $0.isEmpty ? "" : "        " + $0 }
            source = (imports + ["", "@main", "struct Snippet {", "    static func main() async throws {"] + body
                + ["    }", "}", ""]).joined(separator: "\n")
            arguments.append("-parse-as-library")
        } else {
            source = snippet
        }
        let file = folder.appendingPathComponent(asyncMain ? "Snippet.swift" : "main.swift")
        try source.write(to: file, atomically: true, encoding: .utf8)
        let products = BuiltProduct.url("alertctl").deletingLastPathComponent()
        let objects = try ["AlertClient", "Locking"].flatMap { target in
            let objectFolder = products.appendingPathComponent("\(target).build")
            return try FileManager.default.contentsOfDirectory(atPath: objectFolder.path)
                .filter { $0.hasSuffix(".swift.o") }.map { objectFolder.appendingPathComponent($0).path }
        }
        let program = folder.appendingPathComponent("snippet")
        arguments += [file.path, "-I", products.appendingPathComponent("Modules").path] + objects
            + ["-o", program.path]
        let compiler = try ChildProcess(try #require(swiftc), arguments)
        let status = try #require(await compiler.wait(timeout: 90), "swiftc did not finish")
        try #require(status == 0, "swiftc failed:\n\(compiler.standardError)\n--- source:\n\(source)")
        // "no 'async' operations occur within 'await'": a call resolved to a completion-handler twin.
        #expect(!compiler.standardError.contains("no 'async' operations"), "\(compiler.standardError)")
        return program
    }

    /// An RFC 3339 time as alertd writes it.
    static func date(_ text: String) -> Date? {
        (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
            ?? (try? Date(text, strategy: Date.ISO8601FormatStyle()))
    }
}
