import AlertClient

/// Everything the dashboard shows, changed only by `handle(_:)` on the event loop. Pure: no curses, no I/O;
/// what it needs done comes back as `DashboardEffect`s, and `DashboardRenderer` draws it.
struct DashboardState: Sendable {
    /// The server, as shown on screen.
    let serverURL: String
    /// How many alerts the list query asks for.
    let listLimit: Int
    /// Only alerts addressed to this presenter, or all.
    let presenter: String?

    /// The terminal's size and what it can draw; `nil` until the terminal is ready.
    var screen: (rows: Int, columns: Int, glyphs: Glyphs)?
    var connection: ConnectionStatus = .connecting
    /// Pending alerts in display order: grouped by presenter, groups in order of their oldest alert, each
    /// group oldest first.
    private(set) var alerts: [RemoteAlert] = []
    /// Whether the server had more pending alerts than `listLimit`.
    private(set) var listIsTruncated = false
    private(set) var selectedID: String?
    var open: OpenAlert?
    /// Resolved alerts, oldest first.
    private(set) var log: [LogEntry] = []
    var notice: Notice?

    /// How many log entries are kept.
    static let logCapacity = 200

    init(serverURL: String, listLimit: Int = 200, presenter: String? = nil) {
        self.serverURL = serverURL
        self.listLimit = listLimit
        self.presenter = presenter
    }

    /// The selected alert's position in `alerts`.
    var selectedPosition: Int? {
        alerts.firstIndex { $0.id == selectedID }
    }

    /// `alerts` split into runs of one presenter.
    var groups: [(presenter: String, alerts: ArraySlice<RemoteAlert>)] {
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
    mutating func replaceAlerts(with list: RemoteAlertList) {
        let oldPosition = selectedPosition ?? 0
        var order: [String] = []
        var byPresenter: [String: [RemoteAlert]] = [:]
        for alert in list.alerts {
            if byPresenter[alert.presenter] == nil { order.append(alert.presenter) }
            byPresenter[alert.presenter, default: []].append(alert)
        }
        alerts = order.flatMap { byPresenter[$0] ?? [] }
        listIsTruncated = list.alerts.count >= listLimit
        if selectedPosition == nil {
            selectedID = alerts.isEmpty ? nil : alerts[min(oldPosition, alerts.count - 1)].id
        }
    }

    /// Removes one alert at once (answered here), before the list confirms it.
    mutating func removeAlert(_ id: String) {
        guard let position = alerts.firstIndex(where: { $0.id == id }) else { return }
        alerts.remove(at: position)
        if selectedID == id {
            selectedID = alerts.isEmpty ? nil : alerts[min(position, alerts.count - 1)].id
        }
    }

    mutating func moveSelection(by offset: Int) {
        guard !alerts.isEmpty else { return }
        let position = min(max((selectedPosition ?? 0) + offset, 0), alerts.count - 1)
        selectedID = alerts[position].id
    }

    mutating func appendLog(_ entry: LogEntry) {
        log.append(entry)
        if log.count > Self.logCapacity { log.removeFirst(log.count - Self.logCapacity) }
    }
}
