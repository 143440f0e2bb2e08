import AlertClient

extension DashboardState {
    /// Handles a key: on the list (select, open, quit) or in the open alert.
    mutating func handle(_ key: Key) -> [DashboardEffect] {
        switch key {
        case .control("c"): return [.quit]
        case .control("l"): return [.repaint]
        default: break
        }
        notice = nil
        guard var open else { return handleInList(key) }
        let action = open.handle(key)
        self.open = open
        switch action {
        case .none: return []
        case .close:
            self.open = nil
            return []
        case .choose(let button): return choose(button)
        }
    }

    private mutating func handleInList(_ key: Key) -> [DashboardEffect] {
        switch key {
        case .up, .character("k"): moveSelection(by: -1)
        case .down, .character("j"): moveSelection(by: 1)
        case .home: moveSelection(by: -alerts.count)
        case .end: moveSelection(by: alerts.count)
        case .enter, .right:
            guard let position = selectedPosition else { return [] }
            let opened = OpenAlert(alerts[position])
            open = opened
            return opened.needsDetails ? [.fetch(alertID: opened.alert.id, purpose: .details)] : []
        case .character("q"), .character("Q"): return [.quit]
        default: break
        }
        return []
    }

    /// Answers the open alert with `button`, or waits for the details first when secure texts are unknown.
    mutating func choose(_ button: RemoteButton) -> [DashboardEffect] {
        guard var open else { return [] }
        if open.needsDetails {
            open.chosenWhileLoading = button
            open.sending = true
            self.open = open
            return []
        }
        open.sending = true
        self.open = open
        return [.answer(alertID: open.alert.id, buttonIndex: button.index, values: open.values)]
    }
}
