import AlertModel

extension AlertStore {
    /// Resolves a pending alert with a responder's choice.
    ///
    /// - Parameters:
    ///   - id: The alert's id.
    ///   - answer: The button chosen and the values typed (`nil` values means each field's text).
    ///   - responder: Who answered (a credential's name), recorded in the result; `nil` for nobody in particular.
    /// - Returns: The result, with resolution `answered`.
    /// - Throws: `AlertStoreError` `notFound`; `alreadyResolved` with the winning result; `invalid` for an
    ///   index out of range (`/buttonIndex`), an unknown title or one that several buttons share (`/button`), or
    ///   wrong values (`/values`).
    public func answer(
        _ id: AlertID, with answer: AnswerDraft, by responder: String? = nil
    ) throws(AlertStoreError) -> AlertResult {
        defer { endTurn() }
        let (_, alert) = try pendingRecord(id)
        try requireWritable()
        guard alert.policy.quorum == 1 else {
            throw .invalid([FieldIssue(pointer: "/quorum", detail: "alert \(id.rawValue) has a quorum; vote with "
                + "respond(_:with:by:)")])
        }
        let resolved = try answered(id, with: answer, by: responder)
        settle(resolved)
        return resolved.result!
    }

    /// Answers a pending alert, or on a quorum alert (`policy.quorum` > 1) votes on it: a non-cancel choice is
    /// recorded as `responder`'s vote (a `voted` event) and resolves the alert once `quorum` distinct responders chose
    /// the same button, with that button, the completing voter as responder and the votes in the result; a cancel
    /// choice resolves it at once as cancelled (a veto), its votes recorded too.
    ///
    /// - Returns: The alert after the answer or vote: resolved, or pending with one more vote.
    /// - Throws: what `answer(_:with:by:)` throws, and `alreadyVoted` when `responder` voted already (nothing
    ///   changes).
    public func respond(
        _ id: AlertID, with answer: AnswerDraft, by responder: String? = nil
    ) throws(AlertStoreError) -> Alert {
        defer { endTurn() }
        _ = try pendingRecord(id)
        try requireWritable()
        let alert = try voted(id, with: answer, by: responder)
        if alert.result != nil {
            settle(alert)
        } else {
            willChange(alert.sequence)
            records.store(alert)
            bumpIndex(.voted, alert)
            journalize(.voted(alert, event: changeIndex))
        }
        return alert
    }

    /// The pending alert with this id after `answer`: resolved (quorum 1, a veto, or the vote that completes the
    /// quorum) or with one more vote (not stored).
    func voted(_ id: AlertID, with answer: AnswerDraft, by responder: String?) throws(AlertStoreError) -> Alert {
        let resolved = try answered(id, with: answer, by: responder)
        let (_, alert) = try pendingRecord(id)
        guard alert.policy.quorum > 1, let result = resolved.result else { return resolved }
        return try Self.casting(Vote(responder: responder, buttonIndex: result.buttonIndex, at: result.resolvedAt),
                                values: result.values, on: alert)
    }

    /// A pending quorum alert after `vote`: with one more vote, or resolved by it (the vote that completes the
    /// quorum, or a veto: a cancel button), with the votes in the alert and its result. A cluster's writer casts the
    /// vote a store proposed on the alert as the database holds it.
    ///
    /// - Throws: `alreadyVoted` when the vote's responder voted already.
    public static func casting(_ vote: Vote, values: [String], on alert: Alert) throws(AlertStoreError) -> Alert {
        if alert.votes.contains(where: { $0.responder == vote.responder }) {
            throw .alreadyVoted(alert.id, responder: vote.responder)
        }
        var votes = alert.votes
        votes.append(vote)
        let agreeing = votes.filter { $0.buttonIndex == vote.buttonIndex }.count
        guard alert.buttons[vote.buttonIndex].style == .cancel || agreeing >= alert.policy.quorum else {
            var pending = alert
            pending.votes = votes
            return pending
        }
        var resolved = resolved(alert, buttonIndex: vote.buttonIndex, values: values, resolution: .answered,
                                responder: vote.responder)
        resolved.result?.resolvedAt = vote.at
        resolved.result?.votes = votes
        resolved.votes = votes
        return resolved
    }

    /// The pending alert with this id, resolved by `answer` (not stored).
    func answered(_ id: AlertID, with answer: AnswerDraft, by responder: String?) throws(AlertStoreError) -> Alert {
        let (_, alert) = try pendingRecord(id)
        var issues: [FieldIssue] = []
        let buttonIndex = Self.buttonIndex(for: answer.choice, in: alert, issues: &issues)
        let values = Self.values(answer.values, for: alert, limit: configuration.limits.fieldText, issues: &issues)
        guard let buttonIndex, issues.isEmpty else { throw .invalid(issues) }
        return Self.resolved(alert, buttonIndex: buttonIndex, values: values, resolution: .answered,
                             responder: responder)
    }

    /// Withdraws a pending alert: it resolves as its cancel button (or its only button) with each field's text.
    ///
    /// - Parameters:
    ///   - id: The alert's id.
    ///   - responder: Who withdrew it (a credential's name), recorded in the result; `nil` for nobody in particular.
    /// - Returns: The result, with resolution `dismissed`.
    /// - Throws: `AlertStoreError` `notFound`, or `alreadyResolved` with the winning result.
    public func dismiss(_ id: AlertID, by responder: String? = nil) throws(AlertStoreError) -> AlertResult {
        defer { endTurn() }
        let (sequence, alert) = try pendingRecord(id)
        try requireWritable()
        return resolveAsCancel(sequence, alert: alert, resolution: .dismissed, responder: responder)
    }

    /// The sequence number and alert for an id, if it is still pending.
    func pendingRecord(_ id: AlertID) throws(AlertStoreError) -> (sequence: UInt64, alert: Alert) {
        let (sequence, alert) = try record(id)
        if let result = alert.result { throw .alreadyResolved(result, id: id) }
        return (sequence, alert)
    }

    /// The index of the chosen button, or `nil` after appending an issue.
    private static func buttonIndex(for choice: ButtonChoice, in alert: Alert, issues: inout [FieldIssue]) -> Int? {
        switch choice {
        case .index(let index):
            if alert.buttons.indices.contains(index) { return index }
            let last = alert.buttons.count - 1
            let range = last == 0 ? "its only button is 0" : "its buttons are 0 to \(last)"
            issues.append(FieldIssue(pointer: "/buttonIndex", detail: "buttonIndex \(index) is out of range; \(range)"))
        case .title(let title):
            let matching = alert.buttons.filter { $0.title == title }
            if matching.count == 1 { return matching[0].index }
            if matching.count > 1 {
                let indexes = matching.map { String($0.index) }.joined(separator: ", ")
                let detail = "\(matching.count) buttons are titled '\(title)' (indexes \(indexes)), so the title is "
                    + "ambiguous; answer by buttonIndex instead"
                issues.append(FieldIssue(pointer: "/button", detail: detail))
                return nil
            }
            let known = alert.buttons.map { "'\($0.title)'" }.joined(separator: ", ")
            let detail = "no button is titled '\(title)'; the buttons are \(known)"
            issues.append(FieldIssue(pointer: "/button", detail: detail))
        }
        return nil
    }

    /// The values to record: the given ones when valid, or each field's text when none are given.
    private static func values(
        _ given: [String]?,
        for alert: Alert,
        limit: Int,
        issues: inout [FieldIssue]
    ) -> [String] {
        guard let given else { return alert.fields.map(\.text) }
        guard given.count == alert.fields.count else {
            let expected = switch alert.fields.count {
            case 0: "this alert has no fields, so values must be empty or left out"
            case 1: "this alert has 1 field, so exactly 1 value is expected"
            default: "this alert has \(alert.fields.count) fields, so exactly \(alert.fields.count) are expected"
            }
            let got = given.count == 1 ? "1 value given" : "\(given.count) values given"
            issues.append(FieldIssue(pointer: "/values", detail: "\(got); \(expected)"))
            return given
        }
        for (index, value) in given.enumerated() where value.count > limit {
            issues.append(FieldIssue(
                pointer: "/values/\(index)",
                detail: "value \(index) is \(value.count) characters; at most \(limit) are allowed"
            ))
        }
        return given
    }
}
