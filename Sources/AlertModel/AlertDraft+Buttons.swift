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
