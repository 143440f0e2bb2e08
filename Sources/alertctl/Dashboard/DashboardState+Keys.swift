import AlertClient
import Foundation

extension DashboardState {
    /// Handles a key: in the help overlay, on the prompt line, on the list, or in the open alert.
    mutating func handle(_ key: Key) -> [DashboardEffect] {
        switch key {
        case .control("c"): return [.quit]
        case .control("l"): return [.repaint]
        default: break
        }
        notice = nil
        if showsHelp {
            // Any key closes the help; q there closes it rather than quitting.
            showsHelp = false
            return []
        }
        if prompt != nil { return handleInPrompt(key) }
        if batch != nil { return handleInBatch(key) }
        guard var open else { return handleInList(key) }
        if open.proposal != nil || (key == .control("a") && mayMakeRules) { return handleAlways(key) }
        if key == .control("a") {
            notice = .warning("Ctrl-A (always answer like this) makes a rule, and only an admin token may make rules")
            return []
        }
        if key == .pageDown || key == .pageUp, let screen, !open.sending {
            // PgUp/PgDn scroll a message too long for the box, in a field or on the buttons.
            let layout = AlertBoxRenderer.messageLayout(for: open, columns: screen.columns, rows: screen.rows - 3,
                                                        glyphs: screen.glyphs)
            let step = key == .pageDown ? layout.page : -layout.page
            open.messageOffset = min(max(layout.offset + step, 0), layout.maxOffset)
            self.open = open
            return []
        }
        let action = open.handle(key)
        self.open = open
        switch action {
        case .none: return []
        case .close:
            self.open = nil
            return []
        case .refused(let why):
            notice = .warning(why)
            return []
        case .choose(let button): return choose(button)
        case .cancel(let button): return choose(button, typed: false)
        }
    }

    private mutating func handleInList(_ key: Key) -> [DashboardEffect] {
        switch key {
        case .up, .character("k"): moveSelection(by: -1)
        case .down, .character("j"): moveSelection(by: 1)
        case .pageUp: moveSelection(by: -pageSize)
        case .pageDown: moveSelection(by: pageSize)
        case .home, .character("g"): moveSelection(by: -alerts.count)
        case .end, .character("G"): moveSelection(by: alerts.count)
        case .enter, .right:
            guard let selected else { return [] }
            guard mayAnswer(selected) else {
                notice = .warning("read-only: this alert names who may answer it, and you are not among them")
                return []
            }
            let opened = OpenAlert(selected)
            open = opened
            return opened.needsDetails ? [.fetch(alertID: opened.alert.id, purpose: .details)] : []
        case .character(" "): toggleMark()
        case .character("a"): offerBatchAnswer()
        case .character("?"): showsHelp = true
        case .character("/"): prompt = Prompt(kind: .search, text: search)
        case .character("p"): prompt = Prompt(kind: .presenter, text: presenter ?? "")
        case .escape where !search.isEmpty:
            search = ""
            keepSelection(near: 0)
        case .escape where !marked.isEmpty:
            notice = .info("\(marked.count) marks taken away")
            marked = []
        case .character("q"), .character("Q"): return [.quit]
        default: break
        }
        return []
    }

    /// Typing a search (applied as it is typed) or a presenter name (applied on Enter).
    private mutating func handleInPrompt(_ key: Key) -> [DashboardEffect] {
        guard var prompt else { return [] }
        switch key {
        case .character(let character):
            prompt.text.append(character)
        case .backspace:
            if !prompt.text.isEmpty { prompt.text.removeLast() }
        case .control("u"):
            prompt.text = ""
        case .escape:
            self.prompt = nil
            if prompt.kind == .search {
                search = ""
                keepSelection(near: 0)
            }
            return []
        case .enter:
            self.prompt = nil
            return prompt.kind == .presenter ? applyPresenter(prompt.text) : []
        default:
            return []
        }
        self.prompt = prompt
        if prompt.kind == .search {
            search = prompt.text
            keepSelection(near: 0)
        }
        return []
    }

    private mutating func applyPresenter(_ text: String) -> [DashboardEffect] {
        let name = text.trimmingCharacters(in: .whitespaces)
        guard name.isEmpty || Dashboard.isPresenterName(name) else {
            notice = .warning("a presenter name is 1 to 64 of A-Z a-z 0-9 . _ -; got '\(name)'")
            return []
        }
        let presenter = name.isEmpty ? nil : name
        guard presenter != self.presenter else { return [] }
        filter(presenter: presenter)
        connection = .connecting
        notice = .info(presenter.map { "showing presenter \($0) only" } ?? "showing every presenter")
        return [.watch(presenter: presenter)]
    }

    /// How far PgUp and PgDn move: the rows of the list.
    var pageSize: Int {
        guard let screen else { return 10 }
        return max(DashboardRenderer.layout(rows: screen.rows).list.count - 1, 1)
    }

    /// Answers the open alert with `button`, or waits for the details first when secure texts are unknown. While
    /// the server cannot be reached nothing is sent, and the status line says so.
    ///
    /// - Parameter typed: `false` for a cancel: the answer carries `OpenAlert.cancelValues`, what was typed into
    ///   the fields that are not secure (a reason for a denial) and each secure field's original text, so that no
    ///   typed secret leaves this process with a cancel.
    mutating func choose(_ button: RemoteButton, typed: Bool = true) -> [DashboardEffect] {
        guard var open else { return [] }
        guard connection == .connected else {
            notice = .warning("not connected: not sent (\(button.title))")
            return []
        }
        if !typed {
            open.sending = true
            self.open = open
            return [.answer(alertID: open.alert.id, buttonIndex: button.index, values: open.cancelValues)]
        }
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
