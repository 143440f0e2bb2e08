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
    /// One setting: its option (flag, environment variable, help and default, as `--help` shows them) and how to
    /// apply a value, false when the value is not valid.
    private struct Setting: Sendable {
        let option: CommandLineOption
        let apply: @Sendable (inout AlertdConfiguration, String) throws(ConfigurationError) -> Bool

        /// A setting `flag` (nil: only the environment gives it, a secret that `ps` must not show) and `environment`
        /// set; a toggle (`--insecure` alone means on; `--insecure=on|off`, `--insecure on|off` and its variable
        /// take on/off) unless `takesValue`.
        init(_ flag: String?, _ environment: String, _ help: String, default defaultValue: String? = nil,
             takesValue: Bool = true,
             apply: @escaping @Sendable (inout AlertdConfiguration, String) throws(ConfigurationError) -> Bool) {
            option = CommandLineOption(flag.map { [$0] } ?? [], takesValue ? .value("VALUE") : .toggle,
                                       repeatable: true, help: help, default: defaultValue, environment: environment)
            self.apply = apply
        }
    }

    /// The settings' defaults, as `--help` shows them: the configuration's own, written once (`AlertdConfiguration`).
    private static let defaults = AlertdConfiguration()

    /// A whole number in `range`.
    private static func integer(
        _ range: ClosedRange<Int>, _ set: @escaping @Sendable (inout AlertdConfiguration, Int) -> Void
    ) -> @Sendable (inout AlertdConfiguration, String) throws(ConfigurationError) -> Bool {
        number({ Int($0).flatMap { range.contains($0) ? $0 : nil } }, set)
    }

    /// A duration of whole seconds in `range`: a number of seconds, or with units (`90s`, `5m`, `1h30m`, `7d`).
    private static func duration(
        _ range: ClosedRange<Int>, _ set: @escaping @Sendable (inout AlertdConfiguration, Int) -> Void
    ) -> @Sendable (inout AlertdConfiguration, String) throws(ConfigurationError) -> Bool {
        number({ CommandLineText.wholeSeconds($0, in: range) }, set)
    }

    /// Applies the number `parse` reads, when it reads one.
    private static func number(
        _ parse: @escaping @Sendable (String) -> Int?,
        _ set: @escaping @Sendable (inout AlertdConfiguration, Int) -> Void
    ) -> @Sendable (inout AlertdConfiguration, String) throws(ConfigurationError) -> Bool {
        { configuration, text in
            guard let value = parse(text) else { return false }
            set(&configuration, value)
            return true
        }
    }

    /// What every duration's help says it takes (its default is in seconds).
    private static let durationHelp = "seconds, or with a unit: 90s, 5m, 1h30m, 7d"

    /// A default duration as `--help` shows it: whole seconds.
    private static func seconds(_ duration: Duration) -> String {
        String(duration.components.seconds)
    }

    /// Comma-separated push targets, each one `parse` reads, added to those given before.
    private static func notifyTargets(
        _ parse: @escaping @Sendable (String) -> NotifyTarget?
    ) -> @Sendable (inout AlertdConfiguration, String) throws(ConfigurationError) -> Bool {
        { configuration, text in
            let targets = text.split(separator: ",").map { parse(String($0)) }
            guard !targets.isEmpty, targets.allSatisfy({ $0 != nil }) else { return false }
            configuration.notifyTargets += targets.compactMap { $0 }
            return true
        }
    }

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

    private static let settings: [Setting] = [
        Setting("--host", "ALERTD_HOST", "address to bind", default: defaults.http.host) {
            $0.http.host = $1
            return !$1.isEmpty
        },
        Setting("--port", "ALERTD_PORT", "TCP port, 0 picks a free one", default: String(defaults.http.port),
                apply: integer(0...65535) { $0.http.port = $1 }),
        Setting("--threads", "ALERTD_THREADS", "HTTP worker threads", default: String(defaults.http.threads),
                apply: integer(1...64) { $0.http.threads = $1 }),
        Setting("--connection-limit", "ALERTD_CONNECTION_LIMIT", "most simultaneous connections",
                default: String(defaults.http.connectionLimit),
                apply: integer(1...1_000_000) { $0.http.connectionLimit = $1 }),
        Setting("--connection-memory", "ALERTD_CONNECTION_MEMORY", "bytes of header/buffer memory per connection",
                default: String(defaults.http.connectionMemory),
                apply: integer(8192...16 * 1024 * 1024) { $0.http.connectionMemory = $1 }),
        Setting("--idle-timeout", "ALERTD_IDLE_TIMEOUT",
                "how long an idle keep-alive connection stays open, \(durationHelp)",
                default: String(defaults.http.idleTimeout),
                apply: duration(1...3600) { $0.http.idleTimeout = $1 }),
        Setting("--client-connection-limit", "ALERTD_CLIENT_CONNECTION_LIMIT",
                "most simultaneous connections per client address (trusted proxies exempt), 0 for none",
                default: String(defaults.http.perClientConnectionLimit),
                apply: integer(0...1_000_000) { $0.http.perClientConnectionLimit = $1 }),
        Setting("--client-wait-limit", "ALERTD_CLIENT_WAIT_LIMIT",
                "most waiting requests per client (token, else address), then 429; 0 for none",
                default: String(defaults.waitsPerClient),
                apply: integer(0...1_000_000) { $0.waitsPerClient = $1 }),
        Setting("--trusted-proxy", "ALERTD_TRUSTED_PROXY",
                "reverse proxies whose X-Forwarded-For/X-Real-IP name the client: IP addresses or CIDR networks, "
                    + "comma-separated", default: "none") {
            let networks = $1.split(separator: ",", omittingEmptySubsequences: false)
                .map { IPNetwork($0.trimmingCharacters(in: .whitespaces)) }
            guard !networks.contains(nil) else { return false }
            $0.http.trustedProxies = networks.compactMap { $0 }
            return true
        },
        Setting("--header-timeout", "ALERTD_HEADER_TIMEOUT",
                "how long a request head may take after its request line, then 408; \(durationHelp)",
                default: String(defaults.http.headerTimeout),
                apply: duration(1...3600) { $0.http.headerTimeout = $1 }),
        Setting("--body-timeout", "ALERTD_BODY_TIMEOUT", "how long a request body may take, then 408; \(durationHelp)",
                default: String(defaults.http.bodyTimeout),
                apply: duration(1...3600) { $0.http.bodyTimeout = $1 }),
        Setting("--max-url-bytes", "ALERTD_MAX_URL_BYTES", "longest request target (path and query), then 414",
                default: String(defaults.http.maxURLBytes),
                apply: integer(256...16 * 1024 * 1024) { $0.http.maxURLBytes = $1 }),
        Setting("--max-header-bytes", "ALERTD_MAX_HEADER_BYTES", "most bytes of header lines, then 431",
                default: String(defaults.http.maxHeaderBytes),
                apply: integer(256...16 * 1024 * 1024) { $0.http.maxHeaderBytes = $1 }),
        Setting("--data-dir", "ALERTD_DATA_DIR",
                "directory of the SQLite journal: alerts survive restarts (default: none, memory only)") {
            $0.dataDirectory = $1
            return !$1.isEmpty
        },
        Setting("--database", "ALERTD_DATABASE",
                "PostgreSQL URL (postgresql://user@host:port/db) shared by several alertd instances: alerts survive "
                    + "restarts and any instance serves them; not with --data-dir (default: none)") {
            $0.database = $1
            return $1.hasPrefix("postgresql://") || $1.hasPrefix("postgres://")
        },
        Setting("--webhook-lease", "ALERTD_WEBHOOK_LEASE",
                "with --database: how long a claimed webhook delivery stays this instance's after each attempt; then "
                    + "another instance may deliver it; \(durationHelp)", default: seconds(defaults.webhookLease),
                apply: duration(1...86_400) { $0.webhookLease = .seconds($1) }),
        Setting("--max-pending", "ALERTD_MAX_PENDING", "pending alerts before POST answers 429",
                default: String(defaults.store.maxPending),
                apply: integer(1...100_000_000) { $0.store.maxPending = $1 }),
        Setting("--max-resolved", "ALERTD_MAX_RESOLVED", "resolved alerts kept for reading",
                default: String(defaults.store.maxResolved),
                apply: integer(0...100_000_000) { $0.store.maxResolved = $1 }),
        Setting("--retention", "ALERTD_RETENTION", "how long a resolved alert is kept, \(durationHelp)",
                default: seconds(defaults.store.retention),
                apply: duration(0...31_536_000) { $0.store.retention = .seconds($1) }),
        Setting("--event-history", "ALERTD_EVENT_HISTORY", "events kept for resuming event streams",
                default: String(defaults.store.eventHistory),
                apply: integer(1...10_000_000) { $0.store.eventHistory = $1 }),
        Setting("--event-keepalive", "ALERTD_EVENT_KEEPALIVE",
                "time between keep-alive comments on idle event streams, \(durationHelp)",
                default: seconds(defaults.eventKeepAlive),
                apply: duration(1...3600) { $0.eventKeepAlive = .seconds($1) }),
        Setting("--webhook-allow", "ALERTD_WEBHOOK_ALLOW",
                "callback destinations: external, private, loopback, *, names, CIDRs", default: "external") {
            guard let policy = WebhookPolicy(list: $1) else { return false }
            $0.webhooks = policy
            return true
        },
        Setting("--access-log", "ALERTD_ACCESS_LOG", "log every request as JSON on stderr: on or off",
                default: defaults.logRequests ? "on" : "off") {
            guard $1 == "on" || $1 == "off" else { return false }
            $0.logRequests = $1 == "on"
            return true
        },
        Setting("--tokens-file", "ALERTD_TOKENS_FILE",
                "file of bearer tokens, one name:role:token a line; SIGHUP reloads it (default none: open)") {
            $0.tokensFile = $1
            return !$1.isEmpty
        },
        Setting(nil, "ALERTD_TOKENS", "bearer tokens, name:role:token separated by commas (environment only)") {
            (configuration: inout AlertdConfiguration, text: String) throws(ConfigurationError) -> Bool in
            configuration.environmentTokens = try AccessTokens(parsing: text, source: "ALERTD_TOKENS")
            return true
        },
        Setting("--allow-origin", "ALERTD_ALLOW_ORIGIN",
                "without tokens (and for POST /mcp with tokens): web origins (http[s]://host[:port]) whose requests "
                    + "are served, comma-separated",
                default: "none", apply: list(BrowserGuard.isOrigin) { $0.allowedOrigins = $1 }),
        Setting("--allow-host", "ALERTD_ALLOW_HOST",
                "without tokens: Host names served besides localhost, IP addresses and --host, comma-separated",
                default: "none", apply: list(BrowserGuard.isHostName) { $0.allowedHosts = $1 }),
        Setting("--insecure", "ALERTD_INSECURE",
                "allow serving without tokens on a non-loopback address: alone or on, or off",
                default: defaults.insecure ? "on" : "off", takesValue: false) {
            guard $1 == "on" || $1 == "off" else { return false }
            $0.insecure = $1 == "on"
            return true
        },
        Setting("--notify", "ALERTD_NOTIFY",
                "push every new alert to an ntfy topic URL (http[s]://host/TOPIC); repeatable, or comma-separated",
                default: "none", apply: notifyTargets(NotifyTarget.ntfy)),
        Setting("--notify-webhook", "ALERTD_NOTIFY_WEBHOOK",
                "POST every new alert, its link and answer links as JSON to this URL; repeatable, or comma-separated",
                default: "none", apply: notifyTargets(NotifyTarget.webhook)),
        Setting("--notify-token-file", "ALERTD_NOTIFY_TOKEN_FILE",
                "file holding what --notify targets are sent to publish: an ntfy access token (Bearer) or "
                    + "user:password (Basic); a URL's own user:password wins (default: none)") {
            $0.notifyCredentialFile = $1
            return !$1.isEmpty
        },
        Setting(nil, "ALERTD_NOTIFY_TOKEN",
                "what --notify targets are sent, as in --notify-token-file (environment only)") {
            guard let credential = NotifyCredential($1) else { return false }
            $0.notifyCredential = credential
            return true
        },
        Setting("--notify-responder", "ALERTD_NOTIFY_RESPONDER",
                "the responder (a token's name) that notifications' single-alert links sign in as", default: "none") {
            // A token's name: [A-Za-z0-9._-]{1,64}, as the tokens file takes it.
            guard (1...64).contains($1.count),
                  $1.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }) else { return false }
            $0.notifyResponder = $1
            return true
        },
        Setting("--link-lifetime", "ALERTD_LINK_LIFETIME",
                "how long a notification's single-alert and answer links work (each once), \(durationHelp)",
                default: seconds(defaults.linkLifetime),
                apply: duration(1...(30 * 86400)) { $0.linkLifetime = .seconds($1) }),
        Setting("--public-url", "ALERTD_PUBLIC_URL",
                "the base URL a phone reaches alertd at (behind a proxy), for the links in notifications",
                default: "http://HOST:PORT") {
            guard BrowserGuard.isOrigin($1) else { return false }
            $0.publicURL = $1
            return true
        },
        Setting("--shutdown-grace", "ALERTD_SHUTDOWN_GRACE",
                "how long shutdown waits for in-flight requests, \(durationHelp)",
                default: seconds(defaults.shutdownGrace),
                apply: duration(0...3600) { $0.shutdownGrace = .seconds($1) }),
        Setting("--mcp-reveal-secure", "ALERTD_MCP_REVEAL_SECURE",
                "POST /mcp returns secure values a person typed to the agent that asked (they enter its model's "
                    + "context and logs): alone or on, or off", default: defaults.mcp.revealSecure ? "on" : "off",
                takesValue: false) {
            guard $1 == "on" || $1 == "off" else { return false }
            $0.mcp.revealSecure = $1 == "on"
            return true
        },
        Setting("--mcp-progress-interval", "ALERTD_MCP_PROGRESS_INTERVAL",
                "time between progress notifications while an MCP call waits for a person (clients give up on a "
                    + "silent call), \(durationHelp)", default: seconds(defaults.mcp.progressInterval),
                apply: duration(1...240) { $0.mcp.progressInterval = .seconds($1) }),
        Setting("--mcp-approval-timeout", "ALERTD_MCP_APPROVAL_TIMEOUT",
                "how long the alert of an MCP approve call waits before it expires, which denies; 0 for no bound, "
                    + "\(durationHelp)", default: "0",
                apply: duration(0...31_536_000) { $0.mcp.approvalTimeout = $1 == 0 ? nil : .seconds($1) }),
    ]

    private static let helpOption = CommandLineOption(["--help", "-h"], help: "show this help")
    private static let versionOption = CommandLineOption(["--version"], help: "print the version and the git revision")

    /// The options the command line reads: every setting's flag, then `--help` and `--version`.
    private static let options = settings.map(\.option).filter { !$0.names.isEmpty } + [helpOption, versionOption]

    /// The usage text of `alertd --help`.
    public static var usage: String {
        """
        alertd: alerts as resources over HTTP (see openapi.yaml)

        usage: alertd [options]
               alertd backup --data-dir DIR FILE   copy the journal in DIR to FILE, also while alertd runs
               alertd restore --data-dir DIR FILE  make the backup FILE the journal of DIR, as a new instance

        options (each also settable by the environment variable shown):

        """
            + CommandLineOption.table(settings.map(\.option),
                                      extra: [("-h, --help", helpOption.help), ("--version", versionOption.help)])
            + "\nsignals: SIGTERM or SIGINT stops gracefully; SIGHUP reloads the tokens file (a bad file keeps the "
            + "tokens in force)\n"
    }

    /// `ALERTD_*` variables that are not settings but are read by something else: alertctl and AlertClient, the
    /// journal's size cap, the build, the Docker health check and its check script, and the tests.
    private static let otherVariables: Set<String> = [
        "ALERTD_URL", "ALERTD_TOKEN", "ALERTD_TOKEN_FILE", SQLiteJournal.maxPageCountVariable, "ALERTD_REVISION",
        "ALERTD_HEALTHCHECK_PID", "ALERTD_BIN", "ALERTD_TEST_TIME_SCALE", "ALERTD_TEST_PROCESS_WIDTH", "ALERTD_CRASH_KILLS",
        "ALERTD_FUZZ_TRACE",
    ]

    /// A warning for each `ALERTD_*` variable in `environment` that nothing reads (a typo such as
    /// `ALERTD_DATADIR` would otherwise be silently ignored), naming the setting it is nearest to.
    public static func environmentWarnings(_ environment: [String: String]) -> [String] {
        let settings = Self.settings.compactMap(\.option.environment)
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

    /// Reads the environment first, then the flags, which win; each in turn, so the first bad one is reported.
    /// - Parameters:
    ///   - arguments: the command-line arguments without the program name.
    ///   - environment: the process environment.
    /// - Throws: `ConfigurationError` naming the bad flag or variable and what it accepts.
    public static func command(
        arguments: [String], environment: [String: String]
    ) throws(ConfigurationError) -> AlertdCommand {
        var configuration = AlertdConfiguration()
        for setting in settings {
            guard let variable = setting.option.environment, let value = environment[variable] else { continue }
            if !(try setting.apply(&configuration, value)) {
                let shown = setting.option.names.isEmpty ? "" : "='\(NotifyTarget.redacted(value))'"
                throw ConfigurationError(description: "\(variable)\(shown) is not valid: \(setting.option.description)")
            }
        }
        var reader = CommandLineReader(arguments, options: options)
        while let item = try read(&reader) {
            switch item {
            case .positional(let word):
                // A word rather than a flag may be a mistyped command (`alertd bakup`).
                throw ConfigurationError(description: "unknown command '\(word)'"
                    + CommandLineText.suggestion(for: word, in: ["backup", "restore"]) + "; see alertd --help")
            case .option(let option, _) where option.name == helpOption.name:
                return .help(usage)
            case .option(let option, _) where option.name == versionOption.name:
                return .version(BuildInfo.versionLine("alertd"))
            case .option(let option, let value):
                guard let setting = settings.first(where: { $0.option.name == option.name }), let value,
                      try setting.apply(&configuration, value) else {
                    // A URL's password is not repeated (it may be a --notify or --database URL).
                    throw ConfigurationError(description: "\(option.name) '\(NotifyTarget.redacted(value ?? ""))' is "
                        + "not valid: " + option.description)
                }
            }
        }
        if configuration.dataDirectory != nil && configuration.database != nil {
            throw ConfigurationError(description: "--data-dir (ALERTD_DATA_DIR) and --database (ALERTD_DATABASE) "
                + "cannot both be set: one instance journals to its data dir, several share one PostgreSQL")
        }
        if let file = configuration.notifyCredentialFile {
            guard configuration.notifyCredential == nil else {
                throw ConfigurationError(description: "--notify-token-file (ALERTD_NOTIFY_TOKEN_FILE) and "
                    + "ALERTD_NOTIFY_TOKEN cannot both be set: give the ntfy credential once")
            }
            configuration.notifyCredential = try configuration.loadNotifyCredential(file)
        }
        configuration.tokens = try configuration.loadTokens()
        try configuration.checkExposure()
        return .run(configuration)
    }

    /// The next item of `reader`, its failures in alertd's words.
    private static func read(_ reader: inout CommandLineReader) throws(ConfigurationError) -> CommandLineReader.Item? {
        do {
            return try reader.next()
        } catch {
            switch error {
            case .unknownOption(let argument, _, let suggestion):
                throw ConfigurationError(description: "unknown option '\(argument)'\(suggestion); see alertd --help")
            case .missingValue(let option, _):
                throw ConfigurationError(description: "\(option.name) needs a value: \(option.description)")
            case .unexpectedValue(let option, _), .repeated(let option):
                throw ConfigurationError(description: "\(option.name) takes no value")
            }
        }
    }
}
