import Foundation
import HTTPTestSupport
import Testing

/// The README and the pages of docs/ against what they describe: `Package.swift`, the `--help` of the two programs
/// this build made, the variables alertd knows, and each other (links). A document that names a target, a flag, a
/// variable or a heading that is not there fails here, in the commit that made it false.
@Suite("Docs: the README and docs/ name what exists", .spawnsProcesses)
struct DocsTests {
    @Test("The README's layout names every target of Package.swift, and no target that does not exist")
    func layoutMatchesPackage() throws {
        let targets = try Docs.packageTargets()
        #expect(targets.count >= 20, "read \(targets.sorted()) from Package.swift")
        let layout = try Docs.section("## Layout", of: Docs.read("README.md"))
        let named = Docs.layoutTargets(layout)
        for target in targets.subtracting(named).sorted() {
            Issue.record("README's Layout does not name the target \(target) (as `Sources/\(target)`, `Tests/…`)")
        }
        for target in named.subtracting(targets).sorted() {
            Issue.record("README's Layout names \(target), which Package.swift has no target for")
        }
        for path in Docs.layoutPaths(layout) {
            #expect(FileManager.default.fileExists(atPath: Docs.root.appendingPathComponent(path).path),
                    "README's Layout names \(path), which is not in the repository")
        }
    }

    @Test("Every --flag the README and docs/ name is in alertd's or alertctl's --help, or another program's")
    func flagsAreInHelp() async throws {
        var help = ""
        for arguments in [["--help"], ["backup", "--help"], ["restore", "--help"]] {
            help += try await Docs.output(of: "alertd", arguments)
        }
        help += try await Docs.output(of: "alertctl", ["--help"])
        for command in Docs.alertctlCommands {
            help += try await Docs.output(of: "alertctl", [command, "--help"])
        }
        let known = Docs.flags(in: help)
        #expect(known.contains("--data-dir") && known.contains("--button"), "read no flags from --help:\n\(help)")
        let documented = try Docs.documentedFlags()
        for (flag, places) in documented.sorted(by: { $0.key < $1.key }) {
            guard !known.contains(flag), Docs.otherPrograms[flag] == nil, flag != Docs.misspelledFlag else { continue }
            let named = places.sorted().joined(separator: ", ")
            Issue.record("\(flag), named in \(named), is in no --help of alertd or alertctl, nor in otherPrograms")
        }
        for flag in Docs.otherPrograms.keys.sorted() where known.contains(flag) || documented[flag] == nil {
            Issue.record("\(flag) is alertd's or alertctl's now, or no document names it: take it out of otherPrograms")
        }
        // OPERATIONS.md shows alertd refusing this misspelling, naming the flag meant.
        let child = try ChildProcess(BuiltProduct.path("alertd"), [Docs.misspelledFlag, "x"])
        #expect(await child.wait(timeout: TestTime.bound(30)) == 64)
        #expect(child.standardError.contains("unknown option '--datadir' (did you mean '--data-dir'?)"),
                "\(child.standardError)")
    }

    @Test("Every ALERTD_* variable the README and docs/ name is one alertd reads or knows to leave to others")
    func variablesAreKnown() async throws {
        let documented = try Docs.documentedVariables()
        #expect(documented.count >= 30, "\(documented.keys.sorted())")
        #expect(documented["ALERTD_DATADIR"] != nil, "the misspelling OPERATIONS.md shows alertd warning about")
        for (name, places) in documented.sorted(by: { $0.key < $1.key }) {
            // alertd warns at start about every ALERTD_* variable that nothing reads (a typo); a setting with a
            // bad value is refused by name before that, which shows it is read too.
            var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("ALERTD_") }
            environment[name] = "not-a-value"
            let child = try ChildProcess(BuiltProduct.path("alertd"), ["--help"], environment: environment)
            _ = await child.wait(timeout: TestTime.bound(30))
            let warned = child.standardError.contains("\(name) is not a setting alertd knows")
            if name == "ALERTD_DATADIR" {
                #expect(warned, "OPERATIONS.md shows alertd warning about ALERTD_DATADIR: \(child.standardError)")
            } else {
                let named = places.sorted().joined(separator: ", ")
                #expect(!warned, "\(name), named in \(named), is neither read by alertd nor left to others by it")
            }
        }
    }

    @Test("Every problem type the server answers is in openapi.yaml's Problem types and in docs/ERRORS.md")
    func problemTypes() throws {
        let spec = try Docs.read("openapi.yaml")
        let errors = try Docs.read("docs/ERRORS.md")
        var types: Set<String> = []
        for file in try Docs.swiftFiles(under: "Sources/AlertAPI") {
            let text = try Docs.read(file)
            for match in text.matches(of: /\.alertd\(\d{3}, "([a-z-]+)"/) { types.insert(String(match.output.1)) }
        }
        #expect(types.count > 20, "found the problem types of Sources/AlertAPI")
        for type in types.sorted() {
            #expect(spec.contains("- urn:alertd:problem:\(type)\n"), "openapi.yaml's Problem type list lacks \(type)")
            #expect(errors.contains("| `urn:alertd:problem:\(type)` |") || errors.contains("`\(type)` ("),
                    "docs/ERRORS.md names no \(type)")
        }
    }

    @Test("Every link of the README and docs/ to a file of the repository leads to it, and to a heading it has")
    func linksResolve() throws {
        var checked = 0
        for document in try Docs.documents() {
            let text = try Docs.read(document)
            let folder = (document as NSString).deletingLastPathComponent
            for link in Docs.links(in: text) where !link.contains("://") && !link.hasPrefix("mailto:") {
                checked += 1
                let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let target = parts[0].isEmpty ? document : ((folder as NSString).appendingPathComponent(parts[0])
                    as NSString).standardizingPath
                let url = Docs.root.appendingPathComponent(target)
                guard FileManager.default.fileExists(atPath: url.path) else {
                    Issue.record("\(document) links to \(link): there is no \(target)")
                    continue
                }
                guard parts.count == 2, target.hasSuffix(".md") else { continue }
                let anchors = Docs.anchors(try Docs.read(target))
                #expect(anchors.contains(parts[1]), "\(document) links to \(link): \(target) has no such heading")
            }
        }
        #expect(checked >= 40, "found only \(checked) links")
    }
}

/// Reading the repository's documents and `Package.swift`.
enum Docs {
    /// The repository's top-level directory.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// alertctl's commands, each with its own `--help`.
    static let alertctlCommands = [
        "alert", "get", "wait", "answer", "dismiss", "list", "watch", "rules", "mcp", "hook", "dashboard", "demo",
    ]

    /// Flags the documents name that belong to other programs, and which.
    static let otherPrograms: [String: String] = [
        "--build-tests": "swift build", "--call-graph": "perf record",
        "--cflags": "pkg-config", "--cpu": "stress", "--filter": "swift test",
        "--flag": "the placeholder of `--flag value`", "--libs": "pkg-config", "--no-install-recommends": "apt-get",
        "--now": "systemctl enable", "--offline": "systemd-analyze security", "--path": "openapi-python-client",
        "--product": "swift build", "--rm": "docker run", "--skip-build": "swift test",
        "--static-swift-stdlib": "swift build",
        "--header": "claude mcp add", "--mcp-config": "claude", "--permission-prompt-tool": "claude",
        "--transport": "claude mcp add",
    ]

    /// The misspelling of `--data-dir` that docs/OPERATIONS.md shows alertd refusing.
    static let misspelledFlag = "--datadir"

    /// The README and every page of docs/, as paths from the repository's top.
    static func documents() throws -> [String] {
        let pages = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return ["README.md"] + pages
    }

    /// The Swift files under `folder`, as paths from the repository's top.
    static func swiftFiles(under folder: String) throws -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: root.appendingPathComponent(folder).path)
        return (enumerator?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".swift") }.sorted()
            .map { folder + "/" + $0 }
    }

    static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The lines of `text` from the heading `heading` to the next heading of its level or higher.
    static func section(_ heading: String, of text: String) throws -> String {
        let lines = text.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: heading), "no \(heading)")
        let level = heading.prefix { $0 == "#" }.count
        let end = lines[(start + 1)...].firstIndex { line in
            let hashes = line.prefix { $0 == "#" }.count
            return hashes > 0 && hashes <= level && line.dropFirst(hashes).hasPrefix(" ")
        } ?? lines.endIndex
        return lines[start..<end].joined(separator: "\n")
    }

    /// The name of every target, plugin and system library in `Package.swift`.
    static func packageTargets() throws -> Set<String> {
        let manifest = try read("Package.swift")
        let pattern = try Regex(#"\.(?:target|executableTarget|testTarget|systemLibrary|plugin)\(\s*name:\s*"([^"]+)""#)
        return Set(manifest.matches(of: pattern).compactMap { $0.output[1].substring.map(String.init) })
    }

    /// The paths in backquotes of a layout section that lead to a target: `Sources/X`, `Tests/X`, `Plugins/X`.
    static func layoutPaths(_ layout: String) -> [String] {
        let pattern = #/`((?:Sources|Tests|Plugins)/[A-Za-z0-9_-]+)/?`/#
        return layout.matches(of: pattern).map { String($0.output.1) }
    }

    /// The targets a layout section names: the last part of each of its `layoutPaths`.
    static func layoutTargets(_ layout: String) -> Set<String> {
        Set(layoutPaths(layout).map { String($0.split(separator: "/").last ?? "") })
    }

    /// Every `--flag` in `text` (`--flag=value` counts as `--flag`).
    static func flags(in text: String) -> Set<String> {
        Set(text.matches(of: #/(?:^|[^A-Za-z0-9_-])(--[a-z][a-z0-9]*(?:-[a-z0-9]+)*)/#).map { String($0.output.1) })
    }

    /// Every `--flag` the documents name, with the documents that name it.
    static func documentedFlags() throws -> [String: Set<String>] {
        try documents().reduce(into: [:]) { found, document in
            for flag in flags(in: try read(document)) { found[flag, default: []].insert(document) }
        }
    }

    /// Every `ALERTD_*` variable the documents name, with the documents that name it.
    static func documentedVariables() throws -> [String: Set<String>] {
        try documents().reduce(into: [:]) { found, document in
            for match in try read(document).matches(of: #/ALERTD_[A-Z0-9_]*[A-Z0-9]/#) {
                found[String(match.output), default: []].insert(document)
            }
        }
    }

    /// The targets of the Markdown links in `text`, `[text](target)`, outside code blocks and code spans.
    static func links(in text: String) -> [String] {
        var inCode = false
        var links: [String] = []
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("```") { inCode.toggle() }
            guard !inCode else { continue }
            let prose = line.replacing(#/`[^`]*`/#, with: "")
            links += prose.matches(of: #/\]\(([^)\s]+)\)/#).map { String($0.output.1) }
        }
        return links
    }

    /// The anchors GitHub makes of the headings in `text`: lower case, punctuation dropped, spaces as dashes.
    static func anchors(_ text: String) -> Set<String> {
        var inCode = false
        var anchors: Set<String> = []
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("```") { inCode.toggle() }
            guard !inCode, line.hasPrefix("#") else { continue }
            let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
            anchors.insert(String(title.compactMap { character -> Character? in
                if character == " " { return "-" }
                return character.isLetter || character.isNumber || character == "-" || character == "_"
                    ? character : nil
            }))
        }
        return anchors
    }

    /// Standard output and error of the built `program` run with `arguments`, which must exit 0.
    static func output(of program: String, _ arguments: [String]) async throws -> String {
        let child = try ChildProcess(BuiltProduct.path(program), arguments)
        let status = await child.wait(timeout: TestTime.bound(30))
        #expect(status == 0, "\(program) \(arguments.joined(separator: " ")): \(child.standardError)")
        return child.standardOutput + child.standardError
    }
}
