import AlertClient

/// "Always answer like this" (Ctrl-A on an open alert, for a token that may make rules): the rule that would answer
/// alerts like the open one with the chosen button, shown for confirmation before it is made.
struct RuleProposal: Sendable, Equatable {
    /// The rule to make.
    var rule: RuleInput
    /// The button the open alert is answered with (the rule answers with its title).
    var button: RemoteButton

    /// The rule for `alert` answered with `button`: its presenter and title exactly, and for an agent's approval
    /// its tool and each member of its tool input exactly.
    /// - Returns: The proposal, or why there is none (an alert without title or tool would make a rule answering
    ///   every alert of its presenter).
    static func of(_ alert: RemoteAlert, button: RemoteButton) -> Result<RuleProposal, Refusal> {
        let title = alert.title.isEmpty ? nil : alert.title
        guard title != nil || alert.tool != nil else {
            return .failure(Refusal(text: "this alert has no title: a rule would answer every alert of presenter "
                + "\(alert.presenter); make one with alertctl rules add"))
        }
        // A member without text cannot be matched (a glob is 1 character at least); the others still are.
        let input = alert.tool == nil ? nil : (alert.toolInput ?? [:]).filter { !$0.value.isEmpty }
        let match = RuleMatch(presenter: alert.presenter, title: title, tool: alert.tool, toolInput: input)
        return .success(RuleProposal(rule: RuleInput(name: name(for: alert), match: match, button: button.title),
                                     button: button))
    }

    /// Why there is no proposal.
    struct Refusal: Error, Equatable {
        var text: String
    }

    /// `always-<tool or title>-<end of the id>`: 1 to 64 of `a-z 0-9 -`, unique enough to not collide with
    /// another rule made from another alert.
    static func name(for alert: RemoteAlert) -> String {
        var slug = ""
        for scalar in (alert.tool ?? alert.displayTitle).lowercased().unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                slug.unicodeScalars.append(scalar)
            } else if !slug.isEmpty, !slug.hasSuffix("-") {
                slug.append("-")
            }
            if slug.count >= 40 { break }
        }
        while slug.hasSuffix("-") { slug.removeLast() }
        let id = String(alert.id.unicodeScalars.filter { $0.isASCII && $0.properties.isAlphabetic
            || ("0"..."9").contains($0) }.suffix(6)).lowercased()
        return ["always", slug, id].filter { !$0.isEmpty }.joined(separator: "-")
    }

    /// Whether a matcher holds `*` or `?`, which match more than themselves (a rule's texts are globs).
    var widens: Bool {
        rule.match.matchers.contains { $0.name != "tag" && $0.text.contains { $0 == "*" || $0 == "?" } }
    }
}

extension DashboardState {
    /// Ctrl-A on an open alert proposes a rule answering alerts like it with the focused button (the default one
    /// while typing in a field); with a proposal up, `y` answers the alert and then makes the rule, any other key
    /// takes the proposal back.
    mutating func handleAlways(_ key: Key) -> [DashboardEffect] {
        guard var open, !open.sending else { return [] }
        if let proposal = open.proposal {
            open.proposal = nil
            self.open = open
            guard key == .character("y") || key == .character("Y") else {
                notice = .info("no rule made")
                return []
            }
            guard connection == .connected else {
                notice = .warning("not connected: not sent (\(proposal.button.title))")
                return []
            }
            open.sending = true
            self.open = open
            let values = proposal.button.isCancel ? open.cancelValues : open.values
            return [.answerAndMakeRule(alertID: open.alert.id, buttonIndex: proposal.button.index, values: values,
                                       rule: proposal.rule)]
        }
        let button: RemoteButton? = switch open.focus {
        case .button(let position): open.buttons.indices.contains(position) ? open.buttons[position] : nil
        case .field: open.defaultButton
        }
        guard let button else { return [] }
        guard !open.needsDetails else {
            notice = .warning("the alert's details are still loading: press Ctrl-A again")
            return []
        }
        switch RuleProposal.of(open.alert, button: button) {
        case .success(let proposal):
            open.proposal = proposal
            open.confirming = nil
            self.open = open
        case .failure(let refusal):
            notice = .warning(refusal.text)
        }
        return []
    }
}
