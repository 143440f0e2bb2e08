import AlertClient
import BuildInfo
import CommandLineText
import Foundation

/// The `alertctl` program: global options, then a command.
enum Alertctl {
    /// Every command with its own parser, in the order `--help` lists them.
    static var commands: [any Subcommand.Type] {
        [
            AlertCommand.self, GetCommand.self, WaitCommand.self, AnswerCommand.self, DismissCommand.self,
            ListCommand.self, WatchCommand.self, RulesCommand.self, MCPCommand.self, HookCommand.self,
        ]
    }

    /// Runs `alertctl` with `arguments` (without the program name) and returns the exit code.
    static func main(_ arguments: [String], environment: [String: String]) async -> Int32 {
        do throws(UsageError) {
            return try await dispatch(arguments, environment: environment)
        } catch {
            Console.err("alertctl: \(error.message)")
            Console.err("Run 'alertctl --help' for usage.")
            return ExitCode.usage.rawValue
        }
    }

    private static func dispatch(_ arguments: [String], environment: [String: String]) async throws(UsageError)
        -> Int32
    {
        let global = ArgumentParser(options: [.url, .help, .flag("--version", help: "Print the version")])
        let split = arguments.firstIndex { !$0.hasPrefix("-") } ?? arguments.endIndex
        var leading = Array(arguments[..<split])
        // `--url URL` before the command: its value is not the command name.
        var commandIndex = split
        if let last = leading.last, last == "--url", split < arguments.endIndex {
            leading.append(arguments[split])
            commandIndex = arguments.index(after: split)
            if let next = arguments[commandIndex...].firstIndex(where: { !$0.hasPrefix("-") }) {
                leading += arguments[commandIndex..<next]
                commandIndex = next
            } else {
                leading += arguments[commandIndex...]
                commandIndex = arguments.endIndex
            }
        }
        let globals = try global.parse(leading)
        if globals.has("--version") {
            Console.out(BuildInfo.versionLine("alertctl"))
            return ExitCode.ok.rawValue
        }
        guard commandIndex < arguments.endIndex else {
            if globals.has("--help") {
                Console.out(usage)
                return ExitCode.ok.rawValue
            }
            throw UsageError(
                "missing command (alert, get, wait, answer, dismiss, list, watch, rules, mcp, hook, dashboard, demo)")
        }
        let name = arguments[commandIndex]
        let rest = Array(arguments[(commandIndex + 1)...])
        if name == "help" || globals.has("--help") {
            return help(name == "help" ? rest : [name])
        }
        if name == "dashboard" || name == "demo" {
            let (url, passed) = try ArgumentParser.extractURL(rest)
            let client = try makeClient(url ?? globals.value("--url"), environment: environment)
            return name == "dashboard"
                ? await Dashboard.run(client: client, arguments: passed)
                : await Demo.run(client: client, arguments: passed)
        }
        guard let command = command(named: name) else {
            let known = commands.flatMap { [$0.name] + $0.aliases } + ["dashboard", "demo", "help"]
            throw UsageError("unknown command '\(name)'" + CommandLineText.suggestion(for: name, in: known))
        }
        return try await run(command, rest, globalURL: globals.value("--url"), environment: environment)
    }

    private static func run(
        _ command: any Subcommand.Type, _ arguments: [String], globalURL: String?, environment: [String: String]
    ) async throws(UsageError) -> Int32 {
        let parsed: ParsedCommandLine
        let instance: any Subcommand
        do throws(UsageError) {
            parsed = try ArgumentParser(options: command.options + [.url, .help]).parse(arguments)
            if parsed.has("--help") {
                Console.out(command.help)
                return ExitCode.ok.rawValue
            }
            instance = try command.init(parsed)
        } catch {
            Console.err("alertctl \(command.name): \(error.message)")
            Console.err("Run 'alertctl \(command.name) --help' for usage.")
            return ExitCode.usage.rawValue
        }
        let client = try makeClient(parsed.value("--url") ?? globalURL, environment: environment)
        return await instance.run(CommandContext(client: client)).rawValue
    }

    /// The command called `name` (or with `name` as an alias).
    private static func command(named name: String) -> (any Subcommand.Type)? {
        commands.first { $0.name == name || $0.aliases.contains(name) }
    }

    /// `alertctl help [COMMAND]`.
    private static func help(_ arguments: [String]) -> Int32 {
        if let name = arguments.first, let command = command(named: name) {
            Console.out(command.help)
        } else {
            Console.out(usage)
        }
        return ExitCode.ok.rawValue
    }

    /// The client for `--url`, else `ALERTD_URL`, else `http://127.0.0.1:8080`; with the token of
    /// `ALERTD_TOKEN` or `ALERTD_TOKEN_FILE` (never a flag, so `ps` cannot show it).
    static func makeClient(_ url: String?, environment: [String: String]) throws(UsageError) -> AlertClient {
        let token: String?
        do {
            token = try AlertClient.token(from: environment)
        } catch {
            throw UsageError("cannot read ALERTD_TOKEN_FILE '\(environment["ALERTD_TOKEN_FILE"] ?? "")'")
        }
        if let url {
            guard let parsed = AlertClient.parseBaseURL(url) else {
                throw UsageError("--url must be an http:// URL such as http://127.0.0.1:8080; got '\(url)'")
            }
            return AlertClient(baseURL: parsed, token: token)
        }
        if let url = environment["ALERTD_URL"], !url.isEmpty {
            guard let parsed = AlertClient.parseBaseURL(url) else {
                throw UsageError("ALERTD_URL must be an http:// URL such as http://127.0.0.1:8080; got '\(url)'")
            }
            return AlertClient(baseURL: parsed, token: token)
        }
        return AlertClient(baseURL: AlertClient.defaultURL, token: token)
    }
}
