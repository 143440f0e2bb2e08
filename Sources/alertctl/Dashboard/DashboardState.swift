import AlertClient
import Foundation

/// Everything the dashboard shows, changed only by `handle(_:)` on the event loop. Pure: no curses, no I/O;
/// what it needs done comes back as `DashboardEffect`s, and `DashboardRenderer` draws it.
struct DashboardState: Sendable {
    /// A line being typed at the bottom of the screen: a search, or a presenter filter.
    struct Prompt: Sendable, Equatable {
        enum Kind: Sendable, Equatable {
            /// `/`: titles and messages containing the text.
            case search
            /// `p`: only alerts addressed to this presenter (empty for all).
            case presenter
        }

        var kind: Kind
        var text: String
    }

    /// The server, as shown on screen.
    let serverURL: String
    /// How many alerts the list query asks for.
    let listLimit: Int
    /// Only alerts addressed to this presenter, or all; `p` changes it.
    private(set) var presenter: String?
    /// Whether a new alert rings the terminal's bell (`--quiet` turns it off).
    let bell: Bool

    /// The terminal's size and what it can draw; `nil` until the terminal is ready.
    var screen: (rows: Int, columns: Int, glyphs: Glyphs)?
    var connection: ConnectionStatus = .connecting
    /// Pending alerts in display order: grouped by presenter, groups in order of their oldest alert, each
    /// group oldest first.
    private(set) var alerts: [RemoteAlert] = []
    /// Whether the server had more pending alerts than `listLimit` (the list came with `next`).
    private(set) var listIsTruncated = false
    private(set) var selectedID: String?
    var open: OpenAlert?
    /// Resolved alerts, oldest first.
    private(set) var log: [LogEntry] = []
    var notice: Notice?
    /// Shown alerts are those whose title or message contains this (case-insensitively); empty shows all.
    var search = ""
    /// The line being typed, if any.
    var prompt: Prompt?
    /// Whether the help overlay is up.
    var showsHelp = false
    /// The time the screen shows ages and countdowns against; set on every event.
    var now = Date()
    /// Who this dashboard answers as (`GET /v1/me`); `nil` until known, and then every alert counts as answerable
    /// (the server still refuses what it must).
    var identity: Identity?
    /// Alerts marked with Space, to answer together with `a`; only pending ones stay marked.
    var marked: Set<String> = []
    /// The button prompt of `a`, while it is up.
    var batch: BatchAnswer?
    /// Marked alerts whose batch answer is on its way, as they were listed: they may leave the list before the
    /// outcomes come back, and are then logged from here.
    var answering: [String: RemoteAlert] = [:]
    /// Alerts removed and logged here (answered, or found resolved) that a list asked for before still holds: such a
    /// list leaves them out, and once a list no longer holds one it is forgotten (lists arrive in order).
    var settled: Set<String> = []
    /// Every alert listed so far with the presenter it was listed at (id, a NUL, presenter), so that only new ones
    /// and ones escalated to another presenter ring the bell; `nil` before the first list.
    private var seen: Set<String>?

    /// Whether this dashboard may answer `alert` by its `responders`, `groups` and `fourEyes`: the list marks
    /// those it may not (read-only), and Enter does not open them.
    func mayAnswer(_ alert: RemoteAlert) -> Bool {
        identity.map(alert.mayBeAnswered(by:)) ?? true
    }

    /// Whether this dashboard's token may make rules (an admin's, or none on an alertd without tokens): only then
    /// does Ctrl-A ("always answer like this") exist.
    var mayMakeRules: Bool {
        identity?.role == "admin"
    }

    /// How many log entries are kept.
    static let logCapacity = 200

    init(serverURL: String, listLimit: Int = 200, presenter: String? = nil, bell: Bool = true) {
        self.serverURL = serverURL
        self.listLimit = listLimit
        self.presenter = presenter
        self.bell = bell
    }

    /// The alerts on screen: `alerts` narrowed by `search`.
    var shown: [RemoteAlert] {
        guard !search.isEmpty else { return alerts }
        return alerts.filter {
            $0.title.localizedCaseInsensitiveContains(search) || $0.message.localizedCaseInsensitiveContains(search)
        }
    }

    /// The selected alert's position in `shown`.
    var selectedPosition: Int? {
        shown.firstIndex { $0.id == selectedID }
    }

    /// The selected alert, if it is shown.
    var selected: RemoteAlert? {
        selectedPosition.map { shown[$0] }
    }

    /// `shown` split into runs of one presenter.
    var groups: [(presenter: String, alerts: ArraySlice<RemoteAlert>)] {
        let alerts = shown
        var groups: [(presenter: String, alerts: ArraySlice<RemoteAlert>)] = []
        var start = alerts.startIndex
        for index in alerts.indices where index + 1 == alerts.endIndex
            || alerts[index + 1].presenter != alerts[index].presenter {
            groups.append((alerts[index].presenter, alerts[start...index]))
            start = index + 1
        }
        return groups
    }

    /// Takes a new pending list: regroups, keeps the selection on the same alert (or the same place).
    /// - Returns: Whether it holds an alert not listed before, or listed at another presenter before (it escalated);
    ///   the first list never does.
    mutating func replaceAlerts(with list: RemoteAlertList) -> Bool {
        let oldPosition = selectedPosition ?? 0
        settled.formIntersection(list.alerts.map(\.id))
        var list = list
        list.alerts.removeAll { settled.contains($0.id) }
        var order: [String] = []
        var byPresenter: [String: [RemoteAlert]] = [:]
        for alert in list.alerts {
            if byPresenter[alert.presenter] == nil { order.append(alert.presenter) }
            byPresenter[alert.presenter, default: []].append(alert)
        }
        alerts = order.flatMap { byPresenter[$0] ?? [] }
        listIsTruncated = list.next != nil
        marked.formIntersection(list.alerts.map(\.id))
        keepSelection(near: oldPosition)
        let ids = list.alerts.map { $0.id + "\u{0}" + $0.presenter }
        defer { seen = (seen ?? []).union(ids) }
        guard let seen else { return false }
        return ids.contains { !seen.contains($0) }
    }

    /// Removes one alert at once (answered here, or found resolved), before the list confirms it; see `settled`.
    mutating func removeAlert(_ id: String) {
        let position = selectedPosition ?? 0
        settled.insert(id)
        alerts.removeAll { $0.id == id }
        marked.remove(id)
        keepSelection(near: position)
    }

    /// Keeps the selection on a shown alert: the same one, else the one now at `position`.
    mutating func keepSelection(near position: Int) {
        let shown = shown
        if shown.contains(where: { $0.id == selectedID }) { return }
        selectedID = shown.isEmpty ? nil : shown[min(position, shown.count - 1)].id
    }

    mutating func moveSelection(by offset: Int) {
        let shown = shown
        guard !shown.isEmpty else { return }
        let position = min(max((selectedPosition ?? 0) + offset, 0), shown.count - 1)
        selectedID = shown[position].id
    }

    /// Follows another presenter (`nil` for all): the list starts afresh, as the watcher's new query will.
    mutating func filter(presenter: String?) {
        self.presenter = presenter
        alerts = []
        selectedID = nil
        seen = nil
    }

    /// Logs how an alert resolved, unless its line is there already (a batch's outcome and the fetch after the
    /// list lost it can both report one resolution, in either order); returns whether it was added.
    @discardableResult
    mutating func appendLog(_ entry: LogEntry) -> Bool {
        guard !log.contains(where: { $0.alertID == entry.alertID }) else { return false }
        log.append(entry)
        if log.count > Self.logCapacity { log.removeFirst(log.count - Self.logCapacity) }
        return true
    }
}
