import AlertClient
import CommandLineText

/// `alertctl demo`: the seeds' sample app in the terminal, its alerts put up through alertd.
enum Demo {
    static let usage = "alertctl demo [--ascii]"
    static let help = """
        Usage: \(usage)

        The seeds' sample app: a ViewController screen with "Click Me" and "Show secret" buttons and a
        debugLabel. "Click Me" puts up an alert (Cancel, OK) through alertd; "Show secret" presents a
        PopView whose Dismiss button puts up a one-button alert addressed to presenter PopView. Answer
        them from 'alertctl dashboard' in another terminal (or with curl, or 'alertctl answer'); the
        pressed button's title appears in the debug label.

        Keys: 1/2 or arrows + Enter press a button, q quits (withdrawing an alert still waiting).

        Options:
        \(CommandLineOption.ascii.helpLine)
        \(CommandLineOption.url.helpLine)
        \(CommandLineOption.help.helpLine)
        """

    /// Runs the demo until `q`; returns the exit code.
    /// - Parameters:
    ///   - client: The client for alertd.
    ///   - arguments: The command line after `demo` (`--url` already taken out).
    static func run(client: AlertClient, arguments: [String]) async -> Int32 {
        let parsed: ParsedCommandLine
        do throws(UsageError) {
            parsed = try ArgumentParser(options: [.ascii, .help]).parse(arguments)
            if let extra = parsed.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        } catch {
            Console.err("alertctl demo: \(error.message)\nUsage: \(usage) (see alertctl demo --help)")
            return ExitCode.usage.rawValue
        }
        if parsed.has("--help") {
            Console.out(help)
            return ExitCode.ok.rawValue
        }
        if let failure = await DemoLoop(client: client, ascii: parsed.has("--ascii")).run() {
            Console.err("alertctl demo: \(failure)")
            return ExitCode.usage.rawValue
        }
        return ExitCode.ok.rawValue
    }
}
