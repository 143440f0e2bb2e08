@testable import AlertAPI
import BuildInfo
import Testing

/// alertd's command line: `--flag value` and `--flag=value` alike, empty values, `--version`.
@Suite("alertd command line")
struct CommandLineTests {
    /// Every flag `--help` lists as taking a value.
    static let valueFlags: [String] = AlertdConfiguration.usage.split(separator: "\n").compactMap { line in
        let words = line.split(separator: " ")
        return words.count >= 2 && words[0].hasPrefix("--") && words[1] == "VALUE" ? String(words[0]) : nil
    }

    static func configuration(_ arguments: [String], _ environment: [String: String] = [:]) throws
        -> AlertdConfiguration
    {
        guard case .run(let configuration) = try AlertdConfiguration.command(
            arguments: arguments, environment: environment)
        else { throw RawHTTPError(description: "not a run command: \(arguments)") }
        return configuration
    }

    @Test("--flag= with an empty value is refused for every flag, and never takes the next argument as its value")
    func emptyInlineValues() throws {
        #expect(Self.valueFlags.count >= 20, "\(Self.valueFlags)")
        #expect(Self.valueFlags.contains("--host"))
        for flag in Self.valueFlags {
            do {
                _ = try AlertdConfiguration.command(arguments: ["\(flag)=", "--port", "9000"], environment: [:])
                Issue.record("\(flag)= was accepted")
            } catch {
                #expect(error.description.hasPrefix("\(flag) '' is not valid")
                    || error.description.contains("cannot read the tokens file ''"), "\(flag)=: \(error)")
            }
        }
        do {
            _ = try AlertdConfiguration.command(arguments: ["--insecure="], environment: [:])
            Issue.record("--insecure= was accepted")
        } catch {
            #expect(error.description == "--insecure takes no value")
        }
    }

    @Test("--flag=value equals --flag value; only the first = splits, so a value may hold one")
    func inlineValues() throws {
        let inline = try Self.configuration(["--host=::1", "--port=9000", "--webhook-allow=a.test,10.0.0.0/8"])
        let spaced = try Self.configuration(["--host", "::1", "--port", "9000", "--webhook-allow", "a.test,10.0.0.0/8"])
        #expect(inline.http.host == "::1" && spaced.http.host == "::1")
        #expect(inline.http.port == 9000 && spaced.http.port == 9000)
        #expect(inline.webhooks.rules == spaced.webhooks.rules)
        #expect(try Self.configuration(["--host=a=b", "--insecure"]).http.host == "a=b")
        #expect(throws: ConfigurationError.self) { try Self.configuration(["--host"]) }
    }

    @Test("--version prints the version and the git revision alertd was built from")
    func version() throws {
        guard case .version(let line) = try AlertdConfiguration.command(arguments: ["--version"], environment: [:])
        else {
            Issue.record("--version does not print the version")
            return
        }
        #expect(line == "alertd \(BuildInfo.version) (git \(BuildInfo.revision))")
        #expect(BuildInfo.version.first?.isNumber == true, "VERSION: \(BuildInfo.version)")
        #expect(BuildInfo.revision == "unknown"
            || (BuildInfo.revision.count >= 7 && BuildInfo.revision.allSatisfy(\.isHexDigit)), "\(BuildInfo.revision)")
        #expect(AlertdConfiguration.usage.contains("--version"))
    }
}
