@testable import AlertAPI
import BuildInfo
import Foundation
import HTTPTestSupport
import MicroHTTP
import Testing

/// alertd's command line: `--flag value` and `--flag=value` alike, empty values, `--version`, `--trusted-proxy`.
@Suite("alertd command line", .spawnsProcesses)
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
        #expect(Self.valueFlags.contains("--host") && Self.valueFlags.contains("--trusted-proxy"))
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
            #expect(error.description.hasPrefix("--insecure '' is not valid"), "\(error)")
        }
    }

    @Test("--insecure alone is on, and takes on or off as ALERTD_INSECURE does, inline or as the next word")
    func insecureOnOff() throws {
        #expect(try Self.configuration(["--insecure"]).insecure)
        #expect(try Self.configuration(["--insecure", "on", "--port", "9000"]).insecure)
        #expect(try Self.configuration(["--insecure=on"]).insecure)
        #expect(try !Self.configuration(["--insecure=off"], ["ALERTD_INSECURE": "on"]).insecure)
        #expect(try !Self.configuration(["--insecure", "off"], ["ALERTD_INSECURE": "on"]).insecure)
        #expect(try Self.configuration(["--insecure", "--port", "9000"]).http.port == 9000)
        #expect(throws: ConfigurationError.self) { try Self.configuration(["--insecure=yes"]) }
    }

    @Test("a mistyped flag is refused naming the nearest one; a flag like none has no guess")
    func suggestsNearestFlag() throws {
        for (typed, meant) in [("--datadir", "--data-dir"), ("--max-pendign", "--max-pending"), ("--prot", "--port"),
                               ("--tokens_file", "--tokens-file"), ("--verison", "--version"), ("bakup", "backup")] {
            do {
                _ = try AlertdConfiguration.command(arguments: [typed, "x"], environment: [:])
                Issue.record("\(typed) was accepted")
            } catch {
                let what = typed.hasPrefix("-") ? "option" : "command"
                #expect(error.description == "unknown \(what) '\(typed)' (did you mean '\(meant)'?); see alertd --help")
            }
        }
        do {
            _ = try AlertdConfiguration.command(arguments: ["--frobnicate"], environment: [:])
        } catch {
            #expect(error.description == "unknown option '--frobnicate'; see alertd --help")
        }
    }

    @Test("durations take seconds or units (90s, 5m, 1h30m, 7d), from flags and variables; bad ones are refused")
    func durationsWithUnits() throws {
        let configuration = try Self.configuration(
            ["--retention", "7d", "--idle-timeout=90s", "--header-timeout", "1m", "--webhook-lease", "1h30m",
             "--event-keepalive", "20"],
            ["ALERTD_SHUTDOWN_GRACE": "2m", "ALERTD_BODY_TIMEOUT": "45s"])
        #expect(configuration.store.retention == .seconds(7 * 86_400))
        #expect(configuration.http.idleTimeout == 90 && configuration.http.headerTimeout == 60)
        #expect(configuration.webhookLease == .seconds(5400) && configuration.eventKeepAlive == .seconds(20))
        #expect(configuration.shutdownGrace == .seconds(120) && configuration.http.bodyTimeout == 45)
        #expect(try Self.configuration(["--retention", "0"]).store.retention == .seconds(0))
        for bad in ["1.5s", "30m1h", "5x", "-5s", "h", "2h", "1m1m", "", "0x10", "0x1p4", "1e3", "+5"] {
            do {
                _ = try Self.configuration(["--idle-timeout", bad])
                Issue.record("--idle-timeout '\(bad)' was accepted")
            } catch {
                #expect("\(error)".contains("seconds, or with a unit: 90s, 5m, 1h30m, 7d"), "\(error)")
            }
        }
        #expect(throws: ConfigurationError.self) { try Self.configuration([], ["ALERTD_RETENTION": "1 h"]) }
    }

    @Test("an ALERTD_ variable that nothing reads is warned about, naming the setting it is nearest to")
    func unknownVariables() throws {
        let warnings = AlertdConfiguration.environmentWarnings([
            "ALERTD_DATADIR": "/tmp/d", "ALERTD_URL": "http://x", "ALERTD_TOKEN": "t", "ALERTD_PORT": "1",
            "ALERTD_SQLITE_MAX_PAGE_COUNT": "9", "ALERTD_WHATEVER_THIS_IS": "1", "HOME": "/root",
        ])
        #expect(warnings == [
            "warning: ALERTD_DATADIR is not a setting alertd knows, so it is ignored (did you mean 'ALERTD_DATA_DIR'?)",
            "warning: ALERTD_WHATEVER_THIS_IS is not a setting alertd knows, so it is ignored",
        ])
    }

    @Test("alertd started with ALERTD_DATADIR says on stderr that it ignores it, and runs memory only")
    func unknownVariableAtStart() async throws {
        let child = try await AlertdProcess.start(
            environment: ["ALERTD_DATADIR": FileManager.default.temporaryDirectory.path + "/never-made"])
        #expect(await TestTime.until { child.standardOutput.contains("memory only") })
        #expect(await child.stop() == 0)
        #expect(child.standardError.contains(
            "alertd: warning: ALERTD_DATADIR is not a setting alertd knows, so it is ignored "
                + "(did you mean 'ALERTD_DATA_DIR'?)"), "\(child.standardError)")
    }

    @Test("--flag=value equals --flag value; only the first = splits, so a value may hold one")
    func inlineValues() throws {
        let inline = try Self.configuration(["--host=::1", "--port=9000", "--webhook-allow=a.test,10.0.0.0/8",
                                             "--trusted-proxy=10.0.0.1"])
        let spaced = try Self.configuration(["--host", "::1", "--port", "9000", "--webhook-allow", "a.test,10.0.0.0/8",
                                             "--trusted-proxy", "10.0.0.1"])
        #expect(inline.http.host == "::1" && spaced.http.host == "::1")
        #expect(inline.http.port == 9000 && spaced.http.port == 9000)
        #expect(inline.webhooks.rules == spaced.webhooks.rules)
        #expect(inline.http.trustedProxies == spaced.http.trustedProxies)
        #expect(try Self.configuration(["--data-dir=/tmp/a=b"]).dataDirectory == "/tmp/a=b")
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

    @Test("--help shows each setting's default as the configuration has it, so the two never disagree")
    func helpShowsConfiguredDefaults() throws {
        let defaults = AlertdConfiguration()
        let expected: [(String, String)] = [
            ("--host", defaults.http.host), ("--port", String(defaults.http.port)),
            ("--threads", String(defaults.http.threads)), ("--connection-limit", String(defaults.http.connectionLimit)),
            ("--idle-timeout", String(defaults.http.idleTimeout)),
            ("--client-wait-limit", String(defaults.waitsPerClient)),
            ("--max-pending", String(defaults.store.maxPending)), ("--max-resolved", String(defaults.store.maxResolved)),
            ("--retention", String(defaults.store.retention.components.seconds)),
            ("--event-history", String(defaults.store.eventHistory)),
            ("--shutdown-grace", String(defaults.shutdownGrace.components.seconds)),
            ("--webhook-lease", String(defaults.webhookLease.components.seconds)),
        ]
        let lines = AlertdConfiguration.usage.split(separator: "\n")
        for (flag, value) in expected {
            let line = lines.first { $0.hasPrefix("  \(flag) ") }
            #expect(line?.hasSuffix("(default \(value))") == true, "\(flag): \(line ?? "not listed")")
        }
    }

    @Test("--help names the backup command, so an operator finds it where the flags are")
    func helpNamesBackup() {
        #expect(AlertdConfiguration.usage.contains("alertd backup --data-dir DIR FILE"), "\(AlertdConfiguration.usage)")
    }

    @Test("--trusted-proxy and ALERTD_TRUSTED_PROXY take IPv4 and IPv6 addresses and CIDR networks")
    func trustedProxies() throws {
        #expect(try Self.configuration([]).http.trustedProxies.isEmpty, "no proxy is trusted by default")
        let proxies = try Self.configuration(["--trusted-proxy", "127.0.0.1, 10.1.0.0/16,fd00::/8,::1"])
            .http.trustedProxies
        #expect(proxies.map(\.description) == ["127.0.0.1", "10.1.0.0/16", "fd00::/8", "::1"])
        #expect(try Self.configuration([], ["ALERTD_TRUSTED_PROXY": "192.0.2.7"]).http.trustedProxies
            == [try #require(IPNetwork("192.0.2.7"))])
        for bad in ["", ",", "10.0.0.1,", "proxy.example.com", "10.0.0.0/33", "fd00::/129", "10.0.0.1/", "10.0.0/8",
                    "10.0.0.1/08"] {
            #expect(throws: ConfigurationError.self, "'\(bad)'") {
                try Self.configuration(["--trusted-proxy", bad])
            }
        }
    }

    @Test("Networks match IPv4, IPv6 and IPv4-mapped IPv6 peers by prefix")
    func networks() throws {
        let network = try #require(IPNetwork("10.1.0.0/16"))
        #expect(network.contains("10.1.255.3"))
        #expect(network.contains("::ffff:10.1.0.9"), "an IPv4 peer of an IPv6 listener")
        #expect(!network.contains("10.2.0.1"))
        #expect(!network.contains("not an address"))
        let single = try #require(IPNetwork("::1"))
        #expect(single.contains("::1") && !single.contains("::2"))
        let v6 = try #require(IPNetwork("2001:db8:abcd::/48"))
        #expect(v6.contains("2001:db8:abcd:12::7") && !v6.contains("2001:db8:abce::1"))
        #expect(try #require(IPNetwork("0.0.0.0/0")).contains("203.0.113.9"))
    }
}
