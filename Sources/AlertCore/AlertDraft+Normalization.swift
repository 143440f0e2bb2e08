/// The rules of the contract, applied in order; `AlertStore.create(_:)` calls `normalized(limits:)`.
extension AlertDraft {
    /// The buttons and fields after the rules, or every problem found.
    struct Normalized: Sendable, Equatable {
        var buttons: [AlertButton]
        var fields: [AlertField]
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
