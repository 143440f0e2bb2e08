import AlertAPI
import AlertJournal
import BuildInfo
import CommandLineText
import Foundation
import MicroHTTP

/// What the command line asks `alertd` to do.
public enum AlertdCommand: Sendable {
    case run(AlertdConfiguration)
    case help(String)
    /// `--version`: the line to print.
    case version(String)
}

extension AlertdConfiguration {
    /// One setting: a flag, the environment variable that also sets it, and how to apply a value.
    private struct Option: Sendable {
        /// The flag, or nil for a setting only the environment gives (a secret that `ps` must not show).
        let flag: String?
        let environment: String
        let help: String
        /// False for a switch: `--insecure` alone means on; `--insecure=on|off`, `--insecure on|off` and its
        /// variable take on/off.
        var takesValue = true
        let apply: @Sendable (inout AlertdConfiguration, String) throws(ConfigurationError) -> Bool
    }

    private static func integer(
        _ range: ClosedRange<Int>, _ set: @escaping @Sendable (inout AlertdConfiguration, Int) -> Void
    ) -> @Sendable (inout AlertdConfiguration, String) throws(ConfigurationError) -> Bool {
        { configuration, text in
            guard let value = Int(text), range.contains(value) else { return false }
            set(&configuration, value)
            return true
        }
    }

    /// A duration of whole seconds in `range`: a number of seconds, or with units (`90s`, `5m`, `1h30m`, `7d`).
    private static func duration(
        _ range: ClosedRange<Int>, _ set: @escaping @Sendable (inout AlertdConfiguration, Int) -> Void
    ) -> @Sendable (inout AlertdConfiguration, String) throws(ConfigurationError) -> Bool {
        { configuration, text in
            guard let seconds = CommandLineText.wholeSeconds(text, in: range) else { return false }
            set(&configuration, seconds)
            return true
        }
    }

    /// What every duration's help says it takes (its default is in seconds).
    private static let durationHelp = "seconds, or with a unit: 90s, 5m, 1h30m, 7d"

    /// A comma-separated list, each item trimmed and valid, at least one.
    private static func list(
        _ isValid: @escaping @Sendable (String) -> Bool,
        _ set: @escaping @Sendable (inout AlertdConfiguration, [String]) -> Void
    ) -> @Sendable (inout AlertdConfiguration, String) throws(ConfigurationError) -> Bool {
        { configuration, text in
            let items = text.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
            guard !items.isEmpty, items.allSatisfy(isValid) else { return false }
            set(&configuration, items)
            return true
        }
    }

    private static let options: [Option] = [
        Option(flag: "--host", environment: "ALERTD_HOST", help: "address to bind (default 127.0.0.1)") {
            $0.http.host = $1
            return !$1.isEmpty
        },
        Option(flag: "--port", environment: "ALERTD_PORT", help: "TCP port, 0 picks a free one (default 8080)",
               apply: integer(0...65535) { $0.http.port = $1 }),
        Option(flag: "--threads", environment: "ALERTD_THREADS", help: "HTTP worker threads (default 2)",
               apply: integer(1...64) { $0.http.threads = $1 }),
        Option(flag: "--connection-limit", environment: "ALERTD_CONNECTION_LIMIT",
               help: "most simultaneous connections (default 16384)",
               apply: integer(1...1_000_000) { $0.http.connectionLimit = $1 }),
        Option(flag: "--connection-memory", environment: "ALERTD_CONNECTION_MEMORY",
               help: "bytes of header/buffer memory per connection (default 8192)",
               apply: integer(8192...16 * 1024 * 1024) { $0.http.connectionMemory = $1 }),
        Option(flag: "--idle-timeout", environment: "ALERTD_IDLE_TIMEOUT",
               help: "how long an idle keep-alive connection stays open, \(durationHelp) (default 30)",
               apply: duration(1...3600) { $0.http.idleTimeout = $1 }),
        Option(flag: "--client-connection-limit", environment: "ALERTD_CLIENT_CONNECTION_LIMIT",
               help: "most simultaneous connections per client address (trusted proxies exempt), 0 for none "
                   + "(default 1024)",
               apply: integer(0...1_000_000) { $0.http.perClientConnectionLimit = $1 }),
        Option(flag: "--client-wait-limit", environment: "ALERTD_CLIENT_WAIT_LIMIT",
               help: "most waiting requests per client (token, else address), then 429; 0 for none (default 512)",
               apply: integer(0...1_000_000) { $0.waitsPerClient = $1 }),
        Option(flag: "--trusted-proxy", environment: "ALERTD_TRUSTED_PROXY",
               help: "reverse proxies whose X-Forwarded-For/X-Real-IP name the client: IP addresses or CIDR "
                   + "networks, comma-separated (default none)") {
            let networks = $1.split(separator: ",", omittingEmptySubsequences: false)
                .map { IPNetwork($0.trimmingCharacters(in: .whitespaces)) }
            guard !networks.contains(nil) else { return false }
            $0.http.trustedProxies = networks.compactMap { $0 }
            return true
        },
        Option(flag: "--header-timeout", environment: "ALERTD_HEADER_TIMEOUT",
               help: "how long a request head may take after its request line, then 408; \(durationHelp) (default 10)",
               apply: duration(1...3600) { $0.http.headerTimeout = $1 }),
        Option(flag: "--body-timeout", environment: "ALERTD_BODY_TIMEOUT",
               help: "how long a request body may take, then 408; \(durationHelp) (default 10)",
               apply: duration(1...3600) { $0.http.bodyTimeout = $1 }),
        Option(flag: "--max-url-bytes", environment: "ALERTD_MAX_URL_BYTES",
               help: "longest request target (path and query), then 414 (default 4096)",
               apply: integer(256...16 * 1024 * 1024) { $0.http.maxURLBytes = $1 }),
        Option(flag: "--max-header-bytes", environment: "ALERTD_MAX_HEADER_BYTES",
               help: "most bytes of header lines, then 431 (default 4096)",
               apply: integer(256...16 * 1024 * 1024) { $0.http.maxHeaderBytes = $1 }),
        Option(flag: "--data-dir", environment: "ALERTD_DATA_DIR",
               help: "directory of the SQLite journal: alerts survive restarts (default: none, memory only)") {
            $0.dataDirectory = $1
            return !$1.isEmpty
        },
        Option(flag: "--database", environment: "ALERTD_DATABASE",
               help: "PostgreSQL URL (postgresql://user@host:port/db) shared by several alertd instances: alerts "
                   + "survive restarts and any instance serves them; not with --data-dir (default: none)") {
            $0.database = $1
            return $1.hasPrefix("postgresql://") || $1.hasPrefix("postgres://")
        },
        Option(flag: "--webhook-lease", environment: "ALERTD_WEBHOOK_LEASE",
               help: "with --database: how long a claimed webhook delivery stays this instance's after each attempt; "
                   + "then another instance may deliver it; \(durationHelp) (default 60)",
               apply: duration(1...86_400) { $0.webhookLease = .seconds($1) }),
        Option(flag: "--max-pending", environment: "ALERTD_MAX_PENDING",
               help: "pending alerts before POST answers 429 (default 100000)",
               apply: integer(1...100_000_000) { $0.store.maxPending = $1 }),
        Option(flag: "--max-resolved", environment: "ALERTD_MAX_RESOLVED",
               help: "resolved alerts kept for reading (default 10000)",
               apply: integer(0...100_000_000) { $0.store.maxResolved = $1 }),
        Option(flag: "--retention", environment: "ALERTD_RETENTION",
               help: "how long a resolved alert is kept, \(durationHelp) (default 3600)",
               apply: duration(0...31_536_000) { $0.store.retention = .seconds($1) }),
        Option(flag: "--event-history", environment: "ALERTD_EVENT_HISTORY",
               help: "events kept for resuming event streams (default 10000)",
               apply: integer(1...10_000_000) { $0.store.eventHistory = $1 }),
        Option(flag: "--event-keepalive", environment: "ALERTD_EVENT_KEEPALIVE",
               help: "time between keep-alive comments on idle event streams, \(durationHelp) (default 15)",
               apply: duration(1...3600) { $0.eventKeepAlive = .seconds($1) }),
        Option(flag: "--webhook-allow", environment: "ALERTD_WEBHOOK_ALLOW",
               help: "callback destinations: external, private, loopback, *, names, CIDRs (default external)") {
            guard let policy = WebhookPolicy(list: $1) else { return false }
            $0.webhooks = policy
            return true
        },
        Option(flag: "--access-log", environment: "ALERTD_ACCESS_LOG",
               help: "log every request as JSON on stderr: on or off (default on)") {
            guard $1 == "on" || $1 == "off" else { return false }
            $0.logRequests = $1 == "on"
            return true
        },
        Option(flag: "--tokens-file", environment: "ALERTD_TOKENS_FILE",
               help: "file of bearer tokens, one name:role:token a line; SIGHUP reloads it (default none: open)") {
            $0.tokensFile = $1
            return !$1.isEmpty
        },
        Option(flag: nil, environment: "ALERTD_TOKENS",
               help: "bearer tokens, name:role:token separated by commas (environment only)") {
            (configuration: inout AlertdConfiguration, text: String) throws(ConfigurationError) -> Bool in
            configuration.environmentTokens = try AccessTokens(parsing: text, source: "ALERTD_TOKENS")
            return true
        },
        Option(flag: "--allow-origin", environment: "ALERTD_ALLOW_ORIGIN",
               help: "without tokens: web origins (http[s]://host[:port]) whose requests are served, comma-separated "
                   + "(default none)",
               apply: list(BrowserGuard.isOrigin) { $0.allowedOrigins = $1 }),
        Option(flag: "--allow-host", environment: "ALERTD_ALLOW_HOST",
               help: "without tokens: Host names served besides localhost, IP addresses and --host, comma-separated "
                   + "(default none)",
               apply: list(BrowserGuard.isHostName) { $0.allowedHosts = $1 }),
        Option(flag: "--insecure", environment: "ALERTD_INSECURE",
               help: "allow serving without tokens on a non-loopback address: alone or on, or off (default off)",
               takesValue: false) {
            guard $1 == "on" || $1 == "off" else { return false }
            $0.insecure = $1 == "on"
            return true
        },
        Option(flag: "--shutdown-grace", environment: "ALERTD_SHUTDOWN_GRACE",
               help: "how long shutdown waits for in-flight requests, \(durationHelp) (default 10)",
               apply: duration(0...3600) { $0.shutdownGrace = .seconds($1) }),
    ]

    /// The usage text of `alertd --help`.
    public static var usage: String {
        var text = """
            alertd: alerts as resources over HTTP (see openapi.yaml)

            usage: alertd [options]
                   alertd backup --data-dir DIR FILE   copy the journal in DIR to FILE, also while alertd runs
                   alertd restore --data-dir DIR FILE  make the backup FILE the journal of DIR, as a new instance

            options (each also settable by the environment variable shown):

            """
        let names = options.map { option in
            option.flag.map { option.takesValue ? "\($0) VALUE" : "\($0) [on|off]" } ?? ""
        }
        let flagWidth = (names.map(\.count).max() ?? 0) + 2
        let environmentWidth = (options.map(\.environment.count).max() ?? 0) + 2
        for (option, name) in zip(options, names) {
            let flag = name.padding(toLength: flagWidth, withPad: " ", startingAt: 0)
            let environment = option.environment.padding(toLength: environmentWidth, withPad: " ", startingAt: 0)
            text += "  \(flag)\(environment)\(option.help)\n"
        }
        text += "  " + "-h, --help".padding(toLength: flagWidth + environmentWidth, withPad: " ", startingAt: 0)
        text += "show this help\n"
        text += "  " + "--version".padding(toLength: flagWidth + environmentWidth, withPad: " ", startingAt: 0)
        text += "print the version and the git revision\n"
        text += "\nsignals: SIGTERM or SIGINT stops gracefully; SIGHUP reloads the tokens file (a bad file keeps the "
            + "tokens in force)\n"
        return text
    }

    /// `ALERTD_*` variables that are not settings but are read by something else: alertctl and AlertClient, the
    /// journal's size cap, the build, the Docker health check and its check script, and the tests.
    private static let otherVariables: Set<String> = [
        "ALERTD_URL", "ALERTD_TOKEN", "ALERTD_TOKEN_FILE", SQLiteJournal.maxPageCountVariable, "ALERTD_REVISION",
        "ALERTD_HEALTHCHECK_PID", "ALERTD_BIN", "ALERTD_TEST_TIME_SCALE", "ALERTD_CRASH_KILLS", "ALERTD_FUZZ_TRACE",
    ]

    /// A warning for each `ALERTD_*` variable in `environment` that nothing reads (a typo such as
    /// `ALERTD_DATADIR` would otherwise be silently ignored), naming the setting it is nearest to.
    public static func environmentWarnings(_ environment: [String: String]) -> [String] {
        let settings = options.map(\.environment)
        let known = Set(settings).union(otherVariables)
        return environment.keys.filter { $0.hasPrefix("ALERTD_") && !known.contains($0) }.sorted().map { name in
            "warning: \(name) is not a setting alertd knows, so it is ignored"
                + CommandLineText.suggestion(for: name, in: settings)
        }
    }

    /// Writes `environmentWarnings(environment)` to standard error, one line each.
    public static func warnAboutEnvironment(_ environment: [String: String]) {
        for warning in environmentWarnings(environment) {
            FileHandle.standardError.write(Data("alertd: \(warning)\n".utf8))
        }
    }

    /// Reads the environment first, then the flags, which win.
    /// - Parameters:
    ///   - arguments: the command-line arguments without the program name.
    ///   - environment: the process environment.
    /// - Throws: `ConfigurationError` naming the bad flag or variable and what it accepts.
    public static func command(
        arguments: [String], environment: [String: String]
    ) throws(ConfigurationError) -> AlertdCommand {
        var configuration = AlertdConfiguration()
        for option in options {
            if let value = environment[option.environment], !(try option.apply(&configuration, value)) {
                let shown = option.flag == nil ? "" : "='\(value)'"
                throw ConfigurationError(description: "\(option.environment)\(shown) is not valid: \(option.help)")
            }
        }
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if argument == "-h" || argument == "--help" { return .help(usage) }
            if argument == "--version" { return .version(BuildInfo.versionLine("alertd")) }
            // `--flag=value` splits at the first `=` only, and keeps an empty value (`--host=`) as given:
            // it is then refused by the option, never taken from the next argument.
            let equals = argument.firstIndex(of: "=")
            let name = equals.map { String(argument[..<$0]) } ?? argument
            let inline = equals.map { String(argument[argument.index(after: $0)...]) }
            guard let option = options.first(where: { $0.flag != nil && $0.flag == name }),
                  let flag = option.flag else {
                // A word rather than a flag may be a mistyped command (`alertd bakup`).
                let isFlag = argument.hasPrefix("-")
                let known = isFlag ? options.compactMap(\.flag) + ["--help", "--version"] : ["backup", "restore"]
                throw ConfigurationError(description: "unknown \(isFlag ? "option" : "command") '\(argument)'"
                    + CommandLineText.suggestion(for: name, in: known) + "; see alertd --help")
            }
            let value: String
            if !option.takesValue {
                // A switch: alone it is on; it takes on or off as its variable does, inline or as the next word.
                if let inline {
                    value = inline
                } else if let next = remaining.first, next == "on" || next == "off" {
                    value = next
                    remaining = remaining.dropFirst()
                } else {
                    value = "on"
                }
            } else if let given = inline ?? remaining.popFirst() {
                value = given
            } else {
                throw ConfigurationError(description: "\(flag) needs a value: \(option.help)")
            }
            guard try option.apply(&configuration, value) else {
                throw ConfigurationError(description: "\(flag) '\(value)' is not valid: \(option.help)")
            }
        }
        if configuration.dataDirectory != nil && configuration.database != nil {
            throw ConfigurationError(description: "--data-dir (ALERTD_DATA_DIR) and --database (ALERTD_DATABASE) "
                + "cannot both be set: one instance journals to its data dir, several share one PostgreSQL")
        }
        configuration.tokens = try configuration.loadTokens()
        try configuration.checkExposure()
        return .run(configuration)
    }
}
