import AlertClient

/// The alert open on screen, and what has been typed into it.
///
/// Typed text, secure or not, lives only here (in memory) until it goes out in the answer; it is never drawn
/// (secure fields draw a mask), logged or written anywhere.
struct OpenAlert: Sendable {
    /// Where Tab, the arrows and typing go.
    enum Focus: Sendable, Equatable {
        case field(Int)
        /// A position in `buttons` (display order), not a button index.
        case button(Int)
    }

    private(set) var alert: RemoteAlert
    /// One entry per field; `nil` while a secure field's text is unknown (lists leave it out) and untouched.
    private(set) var texts: [String?]
    /// Each field's text as the producer gave it; `nil` for a secure one until the details arrive.
    private var originals: [String?]
    /// The first line of a long message in view (PgUp/PgDn scroll it; the renderer keeps it in range).
    var messageOffset = 0
    var focus: Focus
    /// An answer is on its way; keys are ignored until it is settled.
    var sending = false
    /// A button chosen while secure texts were still unknown: answered once the details arrive.
    var chosenWhileLoading: RemoteButton?
    /// A destructive button chosen once: it is sent only after a second key (Enter, `y` or its number again).
    var confirming: RemoteButton?
    /// "Always answer like this" proposed (Ctrl-A): the rule shown for confirmation; `y` answers and makes it.
    var proposal: RuleProposal?

    init(_ alert: RemoteAlert) {
        self.alert = alert
        texts = alert.fields.map(\.text)
        originals = texts
        focus = alert.fields.isEmpty ? .button(Self.defaultPosition(in: Self.displayOrder(of: alert))) : .field(0)
    }

    var isActionSheet: Bool { alert.style == "actionSheet" }

    /// The buttons in the order they are drawn and numbered: an alert's in index order (the cancel button, index
    /// 0, left-most); an action sheet's with the cancel button moved to the bottom.
    var buttons: [RemoteButton] { Self.displayOrder(of: alert) }

    /// Where focus starts among the buttons, so Enter, Enter answers a plain alert: the first button that is
    /// neither cancel nor destructive; failing that the cancel button (a destructive choice is never the
    /// default); failing that the first.
    var defaultPosition: Int { Self.defaultPosition(in: buttons) }

    var defaultButton: RemoteButton? {
        let buttons = buttons
        return buttons.indices.contains(defaultPosition) ? buttons[defaultPosition] : nil
    }

    /// Whether some secure field's text is still unknown (the details have not arrived).
    var needsDetails: Bool { texts.contains(nil) }

    /// The values to answer with: one per field (`nil` for an alert without fields).
    var values: [String]? {
        alert.fields.isEmpty ? nil : texts.map { $0 ?? "" }
    }

    /// The values a cancel answers with (Esc, or the cancel button): what was typed into the fields that are not
    /// secure (a reason given with a denial), and each secure field's original text, so that a typed secret never
    /// leaves with a cancel. `nil` (the server records each field's original text) for an alert without fields,
    /// or while a secure field's original text is not known.
    var cancelValues: [String]? {
        guard !alert.fields.isEmpty else { return nil }
        var values: [String] = []
        for (position, field) in alert.fields.enumerated() {
            if field.secure {
                guard let original = originals[position] else { return nil }
                values.append(original)
            } else {
                values.append(texts[position] ?? "")
            }
        }
        return values
    }

    /// Fills the texts of untouched fields from the full alert (secure values included); `nil` when it could not
    /// be fetched, which leaves them empty.
    mutating func fillDetails(from details: RemoteAlert?) {
        for index in texts.indices where texts[index] == nil {
            let field = details?.fields.first { $0.index == index }
            texts[index] = field?.text ?? ""
        }
        for index in originals.indices where originals[index] == nil {
            originals[index] = details?.fields.first { $0.index == index }?.text
        }
    }

    /// What a field shows: its text, or `nil` when it is empty (the placeholder is drawn instead).
    func text(ofField index: Int) -> String? {
        guard texts.indices.contains(index), let text = texts[index], !text.isEmpty else { return nil }
        return text
    }

    /// Types `character` into a field if its keyboard could; `false` when the keyboard refuses it.
    mutating func type(_ character: Character, intoField index: Int) -> Bool {
        let text = texts[index] ?? ""
        guard keyboardRule(ofField: index).accepts(character, after: text) else { return false }
        texts[index] = text + String(character)
        return true
    }

    /// What the field at `index` takes, by its keyboard type.
    func keyboardRule(ofField index: Int) -> KeyboardRule {
        KeyboardRule.of(alert.fields.first { $0.index == index }?.keyboard ?? "default")
    }

    mutating func deleteBackward(inField index: Int) {
        var text = texts[index] ?? ""
        if !text.isEmpty { text.removeLast() }
        texts[index] = text
    }

    mutating func clear(field index: Int) {
        texts[index] = ""
    }

    private static func displayOrder(of alert: RemoteAlert) -> [RemoteButton] {
        guard alert.style == "actionSheet" else { return alert.buttons }
        return alert.buttons.filter { !$0.isCancel } + alert.buttons.filter(\.isCancel)
    }

    private static func defaultPosition(in buttons: [RemoteButton]) -> Int {
        buttons.firstIndex { !$0.isCancel && !$0.isDestructive } ?? buttons.firstIndex(where: \.isCancel) ?? 0
    }
}
