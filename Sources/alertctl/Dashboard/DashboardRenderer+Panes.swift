import AlertClient
import Foundation

extension DashboardRenderer {
    /// Every key, for the `?` overlay.
    static let helpLines: [(keys: String, does: String)] = [
        ("On the list", ""),
        ("Up Down  k j", "select an alert"),
        ("PgUp PgDn", "a page up or down"),
        ("Home End  g G", "the first or the last alert"),
        ("Enter  Right", "open the selected alert"),
        ("Space", "mark the selected alert, or unmark it (not a read-only one)"),
        ("a", "answer every marked alert with one button they have in common"),
        ("Esc", "take every mark away (after clearing a search)"),
        ("/", "search titles and messages (Esc clears)"),
        ("p", "show one presenter only (empty: all)"),
        ("?", "this help"),
        ("q  Ctrl-C", "quit"),
        ("Ctrl-L", "redraw the screen"),
        ("In an alert", ""),
        ("1-9", "choose a button by its number"),
        ("Left Right  Up Down", "move between buttons (Up Down on a sheet)"),
        ("Enter  Space", "choose the focused button"),
        ("Tab  Shift-Tab", "move through the fields and buttons"),
        ("typing  Backspace  Ctrl-U", "edit the field (its keyboard type decides what it takes)"),
        ("Esc", "answer with the cancel button (and what was typed, never a secret)"),
        ("PgUp PgDn", "scroll a message too long for the box"),
        ("q  Backspace", "back to the list (on a button)"),
        ("destructive buttons", "ask again: Enter or y sends, any other key goes back"),
    ]

    /// The key only a token that may make rules has.
    static let ruleHelpLine = ("Ctrl-A", "always answer like this: answer with the focused button and make a rule")

    /// The `?` overlay's lines; `rules`: with Ctrl-A.
    static func helpLines(rules: Bool) -> [(keys: String, does: String)] {
        rules ? helpLines + [ruleHelpLine] : helpLines
    }

    /// The help overlay: a box in the middle with every key.
    static func drawHelp(into canvas: inout Canvas, glyphs: Glyphs, rules: Bool) {
        let helpLines = helpLines(rules: rules)
        let keyWidth = helpLines.map { DisplayWidth.of($0.keys) }.max() ?? 0
        let width = min(canvas.columns - 2, keyWidth + 66)
        let height = min(canvas.rows - 2, helpLines.count + 4)
        let top = max(0, (canvas.rows - height) / 2)
        let left = max(0, (canvas.columns - width) / 2)
        canvas.box(row: top, column: left, height: height, width: width, glyphs: glyphs)
        canvas.centered("keys", row: top + 1, column: left + 2, width: width - 4, style: .bold)
        for (row, line) in zip(top + 2..<top + height - 1, helpLines) {
            if line.does.isEmpty {
                canvas.text(line.keys, row: row, column: left + 2, style: TextStyle.bold.colored(.cyan))
                continue
            }
            canvas.text(line.keys, row: row, column: left + 3, style: .bold)
            canvas.text(line.does, row: row, column: left + 5 + keyWidth, width: width - keyWidth - 7)
        }
    }

    /// The confirmation of "always answer like this": the rule's name, each matcher, the button, and the keys.
    static func drawProposal(_ proposal: RuleProposal, into canvas: inout Canvas, glyphs: Glyphs) {
        var lines: [(String, String)] = [("rule", proposal.rule.name)]
        for (position, matcher) in proposal.rule.match.matchers.enumerated() {
            lines.append((position == 0 ? "match" : "", "\(matcher.name) = \(matcher.text)"))
        }
        lines.append(("button", proposal.button.title))
        var notes = ["It answers this alert, then every alert like it (as rule:\(proposal.rule.name))."]
        if proposal.widens { notes.append("* and ? in a text match any characters, so it may match more.") }
        let keys = "y: answer and make the rule    any other key: back"
        let width = min(canvas.columns - 2, max(64, (lines.map { 10 + DisplayWidth.of($0.1) } + notes.map {
            DisplayWidth.of($0)
        }).max() ?? 0) + 6)
        let height = min(canvas.rows - 2, lines.count + notes.count + 6)
        let top = max(0, (canvas.rows - height) / 2)
        let left = max(0, (canvas.columns - width) / 2)
        canvas.fill(row: top, column: left, height: height, width: width, style: .plain)
        canvas.box(row: top, column: left, height: height, width: width, glyphs: glyphs)
        canvas.centered("Always answer like this?", row: top + 1, column: left + 2, width: width - 4, style: .bold)
        var row = top + 3
        for (label, text) in lines where row < top + height - 1 {
            canvas.text(label, row: row, column: left + 3, style: .dim)
            canvas.text(text, row: row, column: left + 13, width: width - 16, style: .bold)
            row += 1
        }
        for note in notes where row < top + height - 2 {
            canvas.text(note, row: row, column: left + 3, width: width - 6)
            row += 1
        }
        canvas.text(keys, row: top + height - 2, column: left + 3, width: width - 6, style: TextStyle.plain.colored(.cyan))
    }

    /// The detail line of the selected (or open) alert: id, presenter, owner, tag, age, and a live countdown when
    /// it has a timeout.
    static func drawDetail(_ state: DashboardState, into canvas: inout Canvas, row: Int, glyphs: Glyphs) {
        guard let alert = state.open?.alert ?? state.selected else { return }
        var parts = ["id \(alert.id)", "presenter \(alert.presenter)"]
        if let owner = alert.owner { parts.append("owner \(owner)") }
        parts.append("tag \(alert.tag)")
        parts.append("age \(duration(since: alert.createdAt, now: state.now))")
        let separator = "  \(glyphs.bullet)  "
        let text = " " + parts.joined(separator: separator)
        canvas.text(text, row: row, column: 1, style: .dim)
        guard let expiresAt = alert.expiresAt, let deadline = Age.date(expiresAt) else { return }
        let left = max(0, Int(deadline.timeIntervalSince(state.now).rounded(.up)))
        let countdown = "\(separator)expires in \(clock(seconds: left))"
        let style = left <= 10 ? TextStyle.bold.colored(.red) : TextStyle.bold.colored(.yellow)
        canvas.text(countdown, row: row, column: 1 + DisplayWidth.of(text), style: style)
    }

    /// `1m 05s`, `2h 03m`: how long ago an RFC 3339 time was.
    static func duration(since text: String, now: Date) -> String {
        guard let date = Age.date(text) else { return "?" }
        let seconds = max(0, Int(now.timeIntervalSince(date)))
        switch seconds {
        case ..<60: return "\(seconds)s"
        case ..<3600: return "\(seconds / 60)m \(twoDigits(seconds % 60))s"
        default: return "\(seconds / 3600)h \(twoDigits(seconds / 60 % 60))m"
        }
    }

    /// `0:42`, `12:05`, `1:02:03`.
    static func clock(seconds: Int) -> String {
        let hours = seconds / 3600
        let minutes = seconds / 60 % 60
        let rest = twoDigits(seconds % 60)
        return hours > 0 ? "\(hours):\(twoDigits(minutes)):\(rest)" : "\(minutes):\(rest)"
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
