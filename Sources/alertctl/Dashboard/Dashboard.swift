import AlertClient
import CommandLineText
import Foundation

/// `alertctl dashboard`: the full-screen terminal UI that lists pending alerts and answers them.
enum Dashboard {
    static let usage = "alertctl dashboard [--presenter NAME] [--quiet] [--ascii]"
    static let help = """
        Usage: \(usage)

        A full-screen terminal dashboard: pending alerts (oldest first, grouped by presenter) appear as
        they are posted; open one with Enter and answer it. Answered alerts are logged at the bottom.

        Keys on the list:  Up/Down (k/j) select, PgUp/PgDn page, Home/End, Enter open, / search titles
                           and messages, p show one presenter, ? help (every key), q quit, Ctrl-L redraw.
                           Space marks an alert (not a read-only one), a answers every marked alert with
                           a button they have in common (1-9), Esc takes the marks away.
        Keys in an alert:  1-9 choose a button, Left/Right (Up/Down on an action sheet) and Enter,
                           Tab/Shift-Tab move between fields and buttons, Esc answers with the cancel
                           button (with what was typed, never a secret: type a reason, Esc denies with
                           it), PgUp/PgDn scroll a long message, q (on a button) goes back without
                           answering. A destructive button asks for a second key (Enter or y) first.
                           For an admin token: Ctrl-A answers with the focused button and makes a rule
                           answering every alert like this one (same presenter and title, an agent's
                           same tool and input) after showing it; y confirms.
        A plain alert is answered with Enter, Enter (the first button other than cancel has the focus).
        Secure fields are masked; what you type is sent in the answer and kept nowhere else. A field
        takes what its keyboard type could type (numberPad: digits only, …). A new alert rings the
        terminal's bell (--quiet: no bell).
        See docs/DASHBOARD.md.

        Options:
        \(CommandLineOption.presenterFilter.helpLine)
        \(CommandLineOption.quiet.helpLine)
        \(CommandLineOption.ascii.helpLine)
        \(CommandLineOption.url.helpLine)
        \(CommandLineOption.help.helpLine)
        """

    /// Runs the dashboard until `q`; returns the exit code.
    /// - Parameters:
    ///   - client: The client for alertd.
    ///   - arguments: The command line after `dashboard` (`--url` already taken out).
    static func run(client: AlertClient, arguments: [String]) async -> Int32 {
        let parsed: ParsedCommandLine
        do throws(UsageError) {
            parsed = try ArgumentParser(options: [.presenterFilter, .quiet, .ascii, .help]).parse(arguments)
            if let extra = parsed.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
            if let presenter = parsed.value("--presenter"), !isPresenterName(presenter) {
                throw UsageError("--presenter needs 1 to 64 of A-Z a-z 0-9 . _ -; got '\(presenter)'")
            }
        } catch {
            Console.err("alertctl dashboard: \(error.message)\nUsage: \(usage) (see alertctl dashboard --help)")
            return ExitCode.usage.rawValue
        }
        if parsed.has("--help") {
            Console.out(help)
            return ExitCode.ok.rawValue
        }
        let loop = DashboardLoop(
            client: client, presenter: parsed.value("--presenter"), ascii: parsed.has("--ascii"),
            bell: !parsed.has("--quiet"),
            hyperlinks: Terminal.supportsHyperlinks(ProcessInfo.processInfo.environment))
        if let failure = await loop.run() {
            Console.err("alertctl dashboard: \(failure)")
            return ExitCode.usage.rawValue
        }
        return ExitCode.ok.rawValue
    }

    /// Whether `name` is a presenter name alertd accepts: `[A-Za-z0-9._-]{1,64}`.
    static func isPresenterName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count) && name.utf8.allSatisfy { byte in
            (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || (byte >= 48 && byte <= 57)
                || byte == 46 || byte == 95 || byte == 45
        }
    }
}

extension CommandLineOption {
    /// `--presenter NAME` for the dashboard: only alerts addressed to NAME.
    static let presenterFilter = option("--presenter", "-p", value: "NAME", help: "Only alerts addressed to NAME")
    /// `--quiet`: no bell when an alert arrives.
    static let quiet = flag("--quiet", help: "Do not ring the terminal's bell when an alert arrives")
    /// `--ascii`: draw frames and masks with ASCII only.
    static let ascii = flag("--ascii", help: "Draw with ASCII only (for terminals without UTF-8)")
}
