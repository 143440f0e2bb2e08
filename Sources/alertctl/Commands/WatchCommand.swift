import AlertClient
import CommandLineText
import Foundation

/// `alertctl watch`: a line for every pending alert that appears or resolves, until Ctrl-C.
struct WatchCommand: Subcommand {
    static let name = "watch"
    static let summary = "Print a line whenever an alert is posted or resolves, until Ctrl-C."
    static let usage = "alertctl watch [--presenter NAME]"
    static let discussion = """
        Starts with a 'pending' line per pending alert, then follows alertd's blocking list query
        (index + wait; no sleeping and polling): 'new' for each new alert, and 'answered', 'dismissed'
        or 'expired' with the chosen button when one resolves. Secure values are never shown. If alertd
        goes away, says so on standard error and reconnects (exit 3 only if it is unreachable at start).
        Follows the oldest 1000 pending alerts, every page of them (a page holds at most 1 MiB).
        """
    static let options: [CommandLineOption] = [
        .option("--presenter", "-p", value: "NAME", help: "Only alerts addressed to this presenter"),
    ]

    /// Seconds each blocking list query waits.
    static let pollWait = 60

    let presenter: String?

    init(_ arguments: ParsedCommandLine) throws(UsageError) {
        _ = try arguments.positionals()
        presenter = arguments.value("--presenter")
    }

    func run(_ context: CommandContext) async -> ExitCode {
        let client = context.client
        var index: UInt64?
        var known: [String: RemoteAlert] = [:]
        var everConnected = false
        var lost = false
        var delay = Duration.milliseconds(200)
        while !Task.isCancelled {
            do {
                let list = try await client.listAll(
                    presenter: presenter, limit: 1000, index: index, wait: index == nil ? 0 : Self.pollWait)
                if lost {
                    Console.err("alertctl: reconnected to \(context.url)")
                    lost = false
                }
                delay = .milliseconds(200)
                if let index, list.index < index {
                    // The server restarted: its index started over.
                    resync(&known, with: list)
                }
                await report(list, against: &known, client: client, initial: !everConnected)
                everConnected = true
                index = list.index
            } catch {
                guard error.isTransient, everConnected else { return Failure.report(error, context) }
                if !lost {
                    Console.err("alertctl: lost alertd at \(context.url) (\(error)); reconnecting…")
                    lost = true
                }
                // After an outage the server may have restarted with a smaller index: ask afresh.
                index = nil
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(5))
            }
        }
        return .ok
    }

    /// Prints what changed between `known` and `list`, then remembers `list`.
    private func report(
        _ list: RemoteAlertList, against known: inout [String: RemoteAlert], client: AlertClient, initial: Bool
    ) async {
        let now = Date()
        let current = Set(list.alerts.map(\.id))
        for (id, alert) in known where !current.contains(id) {
            Console.out(await resolvedLine(alert, client: client, now: now))
        }
        for alert in list.alerts where known[alert.id] == nil {
            Console.out(Self.line(now, initial ? "pending" : "new", alert, detail: Self.summary(alert)))
        }
        known = Dictionary(uniqueKeysWithValues: list.alerts.map { ($0.id, $0) })
    }

    /// After a server restart: alerts we knew that the new server does not have are reported gone.
    private func resync(_ known: inout [String: RemoteAlert], with list: RemoteAlertList) {
        let current = Set(list.alerts.map(\.id))
        for (id, alert) in known where !current.contains(id) {
            Console.out(Self.line(Date(), "gone", alert, detail: "(alertd restarted)"))
        }
        known = known.filter { current.contains($0.key) }
    }

    /// The line for an alert that left the pending list: how it resolved (secure values never shown).
    private func resolvedLine(_ alert: RemoteAlert, client: AlertClient, now: Date) async -> String {
        do {
            let latest = try await client.alert(alert.id)
            if let result = latest.result {
                return Self.line(now, result.resolution, alert, detail: result.buttonTitle)
            }
            return Self.line(now, "moved", alert, detail: "(beyond the first 1000 pending)")
        } catch {
            return Self.line(now, "gone", alert, detail: error.isNotFound ? "(no longer on alertd)" : "(\(error))")
        }
    }

    /// `09:34:28  new        q3l8…  root  detail`, control characters escaped (`VisibleText`).
    static func line(_ date: Date, _ event: String, _ alert: RemoteAlert, detail: String) -> String {
        [Age.clock(date), event.padding(toLength: 9, withPad: " ", startingAt: 0), alert.id, alert.presenter, detail]
            .map(VisibleText.escaped).joined(separator: "  ")
    }

    /// `"Deploy to prod?"  [Cancel | Deploy!]`.
    static func summary(_ alert: RemoteAlert) -> String {
        let headline = AlertTable.truncate(AlertTable.headline(alert), to: AlertTable.textWidth)
        return "\"\(headline)\"  [\(AlertTable.buttons(alert))]"
    }
}
