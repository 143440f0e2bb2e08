@testable import AlertAPI
@testable import AlertCore

/// The limits the fuzzed store runs with: the contract's.
let fuzzLimits = StoreLimits()

/// `normalized(limits:)`, what `AlertStore.create` applies first: the normalized buttons and fields, checked
/// against the contract's rules, or nil after checking the 422.
func checkRules(_ draft: AlertDraft) -> AlertDraft.Normalized? {
    let normalized: AlertDraft.Normalized
    do {
        normalized = try draft.normalized(limits: fuzzLimits)
    } catch {
        expect(error.kind == .invalid && !error.issues.isEmpty, "a refused draft without issues: \(error)")
        checkProblem(Problem(error), statuses: [422], "rules")
        return nil
    }
    let buttons = normalized.buttons
    // Rule 1: no buttons means one OK button.
    expect(!buttons.isEmpty, "no buttons after the rules")
    if draft.buttons.isEmpty {
        expect(buttons == [AlertButton(index: 0, title: "OK", style: .default)], "simple alert: \(buttons)")
    }
    // Rule 2: indices in order; at most one cancel button, at index 0, and always one when there are two or more.
    expect(buttons.map(\.index) == Array(buttons.indices), "button indices \(buttons.map(\.index))")
    let cancels = buttons.indices.filter { buttons[$0].style == .cancel }
    expect(cancels.count <= 1 && cancels.allSatisfy { $0 == 0 }, "cancel buttons at \(cancels)")
    expect(buttons.count < 2 || cancels == [0], "\(buttons.count) buttons without a cancel button first")
    expect(buttons.map(\.title).sorted() == draft.effectiveButtons.map(\.title).sorted(), "button titles changed")
    // Rule 3: destructive titles name buttons, which are destructive.
    for title in draft.destructive {
        expect(buttons.contains { $0.title == title && $0.style == .destructive }, "'\(title)' is not destructive")
    }
    // Rule 4: fields on the alert style only.
    expect(draft.style == .alert || normalized.fields.isEmpty, "fields on an action sheet")
    expect(normalized.fields.map(\.index) == Array(normalized.fields.indices), "field indices")
    // Rule 5: limits.
    expect(!(draft.title.isEmpty && draft.message.isEmpty), "title and message both empty")
    expect(draft.title.count <= fuzzLimits.title && draft.message.count <= fuzzLimits.message, "text too long")
    expect(buttons.count <= fuzzLimits.buttons && normalized.fields.count <= fuzzLimits.fields, "too many")
    expect(buttons.allSatisfy { !$0.title.isEmpty && $0.title.count <= fuzzLimits.buttonTitle }, "button title")
    expect(normalized.fields.allSatisfy {
        $0.text.count <= fuzzLimits.fieldText && $0.placeholder.count <= fuzzLimits.placeholder
    }, "field text or placeholder too long")
    expect(AlertDraft.isValidPresenter(draft.presenter, limit: fuzzLimits.presenter), "presenter '\(draft.presenter)'")
    if let timeout = draft.timeout {
        expect(timeout.isFinite && timeout > 0 && timeout <= fuzzLimits.maxTimeout, "timeout \(timeout)")
    }
    return normalized
}
