import AlertClient

extension OpenAlert {
    /// What a key asks of the dashboard.
    enum Action: Sendable, Equatable {
        case none
        /// Answer with this button and the texts as typed.
        case choose(RemoteButton)
        /// Answer with this button, the texts typed into plain fields and each secure field's original text (Esc,
        /// or the cancel button): a reason goes with a denial, a typed secret never goes with a cancel.
        case cancel(RemoteButton)
        /// Back to the list without answering.
        case close
        /// A key the focused field's keyboard could not type; says what the field takes.
        case refused(String)
    }

    /// Handles a key: typing into the focused field, moving focus, choosing a button.
    ///
    /// In a field: characters (digits too) are typed, Backspace deletes, Ctrl-U clears, Enter moves to the next
    /// field or, in the last one, answers with the default button. On the buttons: 1…9 choose by position,
    /// ←/→ (↑/↓ on an action sheet) move, Enter or Space choose, `q` or Backspace go back to the list.
    /// Anywhere: Tab and Shift-Tab cycle through fields and buttons, Esc answers with the cancel button.
    /// A cancel (Esc, or choosing the cancel button) sends what was typed into the plain fields (a reason for a
    /// denial) and each secure field's original text, never a typed secret.
    ///
    /// A destructive button is sent only after a second key: choosing it asks (`confirming`), then Enter, `y` or
    /// its number again sends it, and any other key takes the choice back.
    mutating func handle(_ key: Key) -> Action {
        guard !sending else { return .none }
        if let button = confirming {
            confirming = nil
            let position = buttons.firstIndex(of: button).map { $0 + 1 }
            let again = key == .enter || key == .character("y") || key == .character("Y")
                || (key.digit != nil && key.digit == position)
            return again ? .choose(button) : .none
        }
        let action = handleUnconfirmed(key)
        guard case .choose(let button) = action else { return action }
        if button.isCancel { return .cancel(button) }
        if button.isDestructive {
            confirming = button
            return .none
        }
        return action
    }

    private mutating func handleUnconfirmed(_ key: Key) -> Action {
        if key == .escape {
            return alert.cancelButton.map(Action.cancel) ?? .none
        }
        switch key {
        case .tab: focus = step(by: 1)
        case .backTab: focus = step(by: -1)
        default:
            switch focus {
            case .field(let index): return handleInField(index, key)
            case .button(let position): return handleOnButton(position, key)
            }
        }
        return .none
    }

    private mutating func handleInField(_ index: Int, _ key: Key) -> Action {
        switch key {
        case .character(let character):
            if !type(character, intoField: index) {
                let field = alert.fields.first { $0.index == index }
                let name = field.map { $0.placeholder.isEmpty ? "field \($0.index + 1)" : $0.placeholder }
                    ?? "this field"
                return .refused("\(name) takes \(keyboardRule(ofField: index).hint) (\(field?.keyboard ?? "default"))")
            }
        case .backspace:
            deleteBackward(inField: index)
        case .control("u"):
            clear(field: index)
        case .enter:
            if index + 1 < alert.fields.count {
                focus = .field(index + 1)
            } else if let button = defaultButton {
                return .choose(button)
            }
        case .down:
            focus = step(by: 1)
        case .up:
            focus = step(by: -1)
        default:
            break
        }
        return .none
    }

    private mutating func handleOnButton(_ position: Int, _ key: Key) -> Action {
        let buttons = buttons
        if let digit = key.digit {
            return digit <= buttons.count ? .choose(buttons[digit - 1]) : .none
        }
        let (back, forward): (Key, Key) = isActionSheet ? (.up, .down) : (.left, .right)
        switch key {
        case back where position > 0:
            focus = .button(position - 1)
        case forward where position + 1 < buttons.count:
            focus = .button(position + 1)
        case .up where !isActionSheet && !alert.fields.isEmpty:
            focus = .field(alert.fields.count - 1)
        case .enter, .character(" "):
            return .choose(buttons[position])
        case .character("q"), .backspace:
            return .close
        default:
            break
        }
        return .none
    }

    /// The focus `offset` steps along the ring of fields, then buttons in display order.
    private func step(by offset: Int) -> Focus {
        let fieldCount = alert.fields.count
        let count = fieldCount + buttons.count
        guard count > 0 else { return focus }
        let current = switch focus {
        case .field(let index): index
        case .button(let position): fieldCount + position
        }
        let next = ((current + offset) % count + count) % count
        return next < fieldCount ? .field(next) : .button(next - fieldCount)
    }
}
