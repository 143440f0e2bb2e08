/// Rules 1 to 3: simple alert, cancel first, destructive.
extension AlertDraft {
    /// The buttons as given, or the single `OK` button of a simple alert (rule 1).
    var effectiveButtons: [ButtonSpec] {
        buttons.isEmpty ? [ButtonSpec(title: "OK", style: .default)] : buttons
    }

    /// Puts the cancel button first and applies `destructive`; problems go to `issues`.
    ///
    /// - Parameters:
    ///   - issues: Where problems are appended.
    /// - Returns: The buttons in their final order with final styles (meaningless when `issues` grew).
    func normalizedButtons(issues: inout [FieldIssue]) -> [AlertButton] {
        let specs = effectiveButtons
        var styles = specs.map { $0.style ?? .default }
        var order = Array(specs.indices)
        // Rule 2: the cancel button, its input index, and whether the left-most became it by default.
        var cancel: (index: Int, implicit: Bool)?
        let marked = specs.indices.filter { specs[$0].style == .cancel }
        if let first = marked.first {
            cancel = (first, false)
            for extra in marked.dropFirst() {
                issues.append(FieldIssue(
                    pointer: "/buttons/\(extra)",
                    detail: "'\(specs[extra].title)' is marked cancel, but '\(specs[first].title)' (button \(first))"
                        + " already is; an alert has at most one cancel button"
                ))
            }
            order.removeAll { $0 == first }
            order.insert(first, at: 0)
        } else if specs.count > 1 {
            cancel = (0, true)
            if styles[0] == .destructive {
                issues.append(FieldIssue(pointer: "/buttons/0", detail: Self.cancelNotDestructive(specs[0].title)))
            }
            styles[0] = .cancel
        }
        // Rule 3: destructive titles must name buttons other than the cancel button.
        for (position, title) in destructive.enumerated() {
            let matches = specs.indices.filter { specs[$0].title == title }
            if matches.isEmpty {
                let known = specs.map { "'\($0.title)'" }.joined(separator: ", ")
                issues.append(FieldIssue(
                    pointer: "/destructive/\(position)",
                    detail: "'\(title)' does not name a button; the buttons are \(known)"
                ))
            } else if let cancel, matches.contains(cancel.index) {
                let detail = cancel.implicit
                    ? Self.cancelNotDestructive(title)
                    : "'\(title)' is marked cancel and cannot also be destructive"
                issues.append(FieldIssue(pointer: "/destructive/\(position)", detail: detail))
            } else {
                for match in matches { styles[match] = .destructive }
            }
        }
        return order.enumerated().map { index, input in
            AlertButton(index: index, title: specs[input].title, style: styles[input])
        }
    }

    /// Why the left-most button, made cancel by default, cannot be destructive.
    private static func cancelNotDestructive(_ title: String) -> String {
        "'\(title)' is the cancel button (the left-most button becomes the cancel button when none is marked"
            + " cancel) and cannot be destructive; mark another button as cancel"
    }
}

/// The rules of the contract, applied in order; `AlertStore.create(_:)` calls `normalized(limits:)`.
extension AlertDraft {
    /// The buttons and fields after the rules, or every problem found.
    package struct Normalized: Sendable, Equatable {
        package var buttons: [AlertButton]
        package var fields: [AlertField]
    }

    /// Applies the rules in the contract's order, collecting every problem before it gives up.
    ///
    /// Pointers in issues refer to positions in the draft as given (before the cancel button moves).
    ///
    /// - Parameters:
    ///   - limits: The size limits to enforce.
    /// - Throws: `AlertStoreError.invalid` listing every problem.
    func normalized(limits: StoreLimits) throws(AlertStoreError) -> Normalized {
        var issues: [FieldIssue] = []
        let buttons = normalizedButtons(issues: &issues)
        if style == .actionSheet && !fields.isEmpty {
            issues.append(FieldIssue(
                pointer: "/fields",
                detail: "an action sheet cannot have text fields; use style alert or remove the fields"
            ))
        }
        checkLimits(limits, issues: &issues)
        checkPolicy(issues: &issues)
        checkEscalation(issues: &issues)
        tool?.check(issues: &issues)
        guard issues.isEmpty else { throw .invalid(issues) }
        let fields = fields.enumerated().map { index, spec in
            AlertField(
                index: index,
                text: spec.text,
                placeholder: spec.placeholder,
                secure: spec.secure,
                keyboard: spec.keyboard
            )
        }
        return Normalized(buttons: buttons, fields: fields)
    }
}

/// A draft that passed the rules, with its normalized buttons and fields and a fresh id: everything about a new alert
/// that does not need the store, made before taking it so that a create holds the store only to store the alert.
public struct PreparedAlert: Sendable {
    /// The draft as the producer gave it (idempotency compares it with a retry's).
    public let draft: AlertDraft
    package let normalized: AlertDraft.Normalized
    /// The id the alert gets unless it is taken (then the store draws another).
    package let id: AlertID

    /// Applies the rules to `draft` and draws an id.
    ///
    /// - Parameters:
    ///   - draft: The alert as the producer asked for it.
    ///   - limits: The size limits to enforce (the store's `configuration.limits`).
    /// - Throws: `AlertStoreError` `invalid` listing every broken rule.
    public init(_ draft: AlertDraft, limits: StoreLimits) throws(AlertStoreError) {
        self.draft = draft
        normalized = try draft.normalized(limits: limits)
        id = .random()
    }
}
