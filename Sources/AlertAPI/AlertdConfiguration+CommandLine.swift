/// What the command line asks `alertd` to do.
public enum AlertdCommand: Sendable {
    case run(AlertdConfiguration)
    case help(String)
}

/// A bad flag, value or environment variable, with a message for the user.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public let description: String
}

extension AlertdConfiguration {
    /// One setting: a flag, the environment variable that also sets it, and how to apply a value.
    private struct Option: Sendable {
        let flag: String
        let environment: String
        let help: String
        let apply: @Sendable (inout AlertdConfiguration, String) -> Bool
    }

    private static func integer(
        _ range: ClosedRange<Int>, _ set: @escaping @Sendable (inout AlertdConfiguration, Int) -> Void
    ) -> @Sendable (inout AlertdConfiguration, String) -> Bool {
        { configuration, text in
            guard let value = Int(text), range.contains(value) else { return false }
            set(&configuration, value)
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
               help: "most simultaneous connections (default 10000)",
               apply: integer(1...1_000_000) { $0.http.connectionLimit = $1 }),
        Option(flag: "--connection-memory", environment: "ALERTD_CONNECTION_MEMORY",
               help: "bytes of header/buffer memory per connection (default 16384)",
               apply: integer(8192...16 * 1024 * 1024) { $0.http.connectionMemory = $1 }),
        Option(flag: "--idle-timeout", environment: "ALERTD_IDLE_TIMEOUT",
               help: "seconds an idle keep-alive connection stays open (default 30)",
               apply: integer(1...3600) { $0.http.idleTimeout = $1 }),
        Option(flag: "--max-pending", environment: "ALERTD_MAX_PENDING",
               help: "pending alerts before POST answers 429 (default 100000)",
               apply: integer(1...100_000_000) { $0.store.maxPending = $1 }),
        Option(flag: "--max-resolved", environment: "ALERTD_MAX_RESOLVED",
               help: "resolved alerts kept for reading (default 10000)",
               apply: integer(0...100_000_000) { $0.store.maxResolved = $1 }),
        Option(flag: "--retention", environment: "ALERTD_RETENTION",
               help: "seconds a resolved alert is kept (default 3600)",
               apply: integer(0...31_536_000) { $0.store.retention = .seconds($1) }),
        Option(flag: "--event-history", environment: "ALERTD_EVENT_HISTORY",
               help: "events kept for resuming event streams (default 10000)",
               apply: integer(1...10_000_000) { $0.store.eventHistory = $1 }),
        Option(flag: "--event-keepalive", environment: "ALERTD_EVENT_KEEPALIVE",
               help: "seconds between keep-alive comments on idle event streams (default 15)",
               apply: integer(1...3600) { $0.eventKeepAlive = .seconds($1) }),
        Option(flag: "--webhook-allow", environment: "ALERTD_WEBHOOK_ALLOW",
               help: "callback destinations: hosts and IPv4 CIDRs, comma-separated (default loopback)") {
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
        Option(flag: "--shutdown-grace", environment: "ALERTD_SHUTDOWN_GRACE",
               help: "seconds shutdown waits for in-flight requests (default 10)",
               apply: integer(0...3600) { $0.shutdownGrace = .seconds($1) }),
    ]

    /// The usage text of `alertd --help`.
    public static var usage: String {
        var text = """
            alertd: alerts as resources over HTTP (see openapi.yaml)

            usage: alertd [options]

            options (each also settable by the environment variable shown):

            """
        for option in options {
            let flag = "\(option.flag) VALUE".padding(toLength: 24, withPad: " ", startingAt: 0)
            let environment = option.environment.padding(toLength: 26, withPad: " ", startingAt: 0)
            text += "  \(flag)\(environment)\(option.help)\n"
        }
        text += "  -h, --help                                        show this help\n"
        return text
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
            if let value = environment[option.environment], !option.apply(&configuration, value) {
                throw ConfigurationError(description: "\(option.environment)='\(value)' is not valid: \(option.help)")
            }
        }
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if argument == "-h" || argument == "--help" { return .help(usage) }
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            guard let option = options.first(where: { $0.flag == parts[0] }) else {
                throw ConfigurationError(description: "unknown option '\(argument)'; see alertd --help")
            }
            guard let value = parts.count == 2 ? parts[1] : remaining.popFirst() else {
                throw ConfigurationError(description: "\(option.flag) needs a value: \(option.help)")
            }
            guard option.apply(&configuration, value) else {
                throw ConfigurationError(description: "\(option.flag) \(value) is not valid: \(option.help)")
            }
        }
        return .run(configuration)
    }
}
