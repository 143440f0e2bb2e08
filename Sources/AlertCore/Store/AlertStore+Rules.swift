import Foundation

/// Rules that answer alerts (`AnswerRule`): kept by the store beside its alerts and made durable by the same
/// journal, in the same commit as the answers they give. A rule answers every matching pending alert in the turn
/// that makes it, and each matching alert later in the turn that creates it, so a producer's create response shows
/// it answered and nobody is woken for it. On a cluster (a store with an authority) the database keeps the rules and
/// its writer applies them in the transaction that creates an alert or adds a rule (so every instance answers alike,
/// at once); the store holds the copy it was last handed (`replaceRules(_:)`), which reads catch up to.
extension AlertStore {
    /// A change to the rules a client asks for.
    public enum RuleChange: Sendable {
        /// Adds a rule (its name must be new) and answers every pending alert it matches.
        case add(AnswerRule)
        /// Removes the rule with this name.
        case remove(String)
    }

    /// What a rule change made: the rule (added, or as it was when removed) and the ids of the alerts it answered.
    public typealias RuleWritten = (rule: AnswerRule, answered: [AlertID])

    /// Changes the rules, and calls `then` once the change (and every answer it gave) is durable.
    ///
    /// - Parameters:
    ///   - change: What to change.
    ///   - then: The rule and the alerts answered; or `ruleExists` for a name taken, `notFound` for a name unknown,
    ///     `invalid` for a bad rule or too many, `unavailable` when the journal (or the cluster's database) failed.
    public nonisolated func writeRule(_ change: RuleChange, then: @escaping Completion<RuleWritten>) {
        if let authority {
            if case .add(let rule) = change {
                let issues = rule.issues(at: rule.createdAt)
                guard issues.isEmpty else { return then(.failure(.invalid(issues))) }
            }
            return authority.commitRule(change, done: then)
        }
        turn({ store throws(AlertStoreError) in
            switch change {
            case .add(let rule): try store.addRule(rule)
            case .remove(let name): (try store.removeRule(named: name), [])
            }
        }, done: Self.settled(then))
    }

    /// Adds `rule` and answers every pending alert it matches, oldest first.
    public func addRule(_ rule: AnswerRule) throws(AlertStoreError) -> RuleWritten {
        defer { endTurn() }
        try requireWritable()
        // Checked at the moment the request was read: a rule whose expiry falls between then and this turn is kept
        // (listed as expired) and answers nothing.
        let issues = rule.issues(at: rule.createdAt)
        guard issues.isEmpty else { throw .invalid(issues) }
        guard rules[rule.name] == nil else { throw .ruleExists(rule.name) }
        guard rules.count < AnswerRule.maximumRules else {
            throw .invalid([FieldIssue(pointer: "/name", detail: "\(rules.count) rules are kept, the most allowed; "
                + "remove some first")])
        }
        rules[rule.name] = rule
        journalize(.ruleAdded(rule))
        let now = Date()
        var answered: [AlertID] = []
        for sequence in Array(pendingQueue.live) {
            guard let alert = records[sequence], let buttonIndex = rule.answer(for: alert, at: now) else { continue }
            answer(alert, buttonIndex: buttonIndex, by: rule)
            answered.append(alert.id)
        }
        return (rule, answered)
    }

    /// Removes the rule named `name`, and returns it.
    public func removeRule(named name: String) throws(AlertStoreError) -> AnswerRule {
        defer { endTurn() }
        try requireWritable()
        guard let rule = rules.removeValue(forKey: name) else { throw .ruleNotFound(name) }
        journalize(.ruleRemoved(name: name))
        return rule
    }

    /// Every rule, expired ones included, oldest first.
    public var answerRules: [AnswerRule] {
        rules.values.sorted { ($0.createdAt, $0.name) < ($1.createdAt, $1.name) }
    }

    /// Answers a pending alert just made (in this turn) when a rule matches it, the oldest such rule; returns the
    /// alert as it is after.
    func answeredByRule(_ alert: Alert) -> Alert {
        guard !rules.isEmpty, let answered = Self.answered(alert, byOldestOf: answerRules, at: Date()) else {
            return alert
        }
        settle(answered.alert)
        ruleAnswerCounts[answered.rule.name, default: 0] += 1
        return answered.alert
    }

    /// Resolves a pending alert as `rule`'s answer, with each field's prefilled text.
    private func answer(_ alert: Alert, buttonIndex: Int, by rule: AnswerRule) {
        settle(Self.resolved(alert, buttonIndex: buttonIndex, by: rule))
        ruleAnswerCounts[rule.name, default: 0] += 1
    }

    /// `alert` answered by the first of `rules` (oldest first) that matches it at `now`, or nil: an alert with an
    /// answer policy is never answered by a rule.
    public static func answered(
        _ alert: Alert, byOldestOf rules: [AnswerRule], at now: Date
    ) -> (alert: Alert, rule: AnswerRule)? {
        guard alert.policy.isDefault else { return nil }
        for rule in rules {
            guard let buttonIndex = rule.answer(for: alert, at: now) else { continue }
            return (resolved(alert, buttonIndex: buttonIndex, by: rule), rule)
        }
        return nil
    }

    /// `alert` resolved as `rule`'s answer with the button at `buttonIndex`, each field's prefilled text as its value.
    public static func resolved(_ alert: Alert, buttonIndex: Int, by rule: AnswerRule) -> Alert {
        resolved(alert, buttonIndex: buttonIndex, values: alert.fields.map(\.text), resolution: .answered,
                 responder: rule.responder)
    }

    /// Takes the rules as the cluster's database holds them (its writer hands them over when they changed).
    public func replaceRules(_ newRules: [AnswerRule]) {
        defer { endTurn() }
        rules = Dictionary(newRules.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// `read(_:then:)` after catching up with the cluster's database (at once without one): a rule another instance
    /// made or removed a moment ago is shown.
    public nonisolated func readCaughtUp<T: Sendable>(
        _ work: @escaping @Sendable (isolated AlertStore) throws(AlertStoreError) -> T, then: @escaping Completion<T>
    ) {
        guard let authority else { return read(work, then: then) }
        authority.catchUp { self.read(work, then: then) }
    }
}

extension AlertStoreError {
    /// A rule with this name exists already.
    public static func ruleExists(_ name: String) -> AlertStoreError {
        AlertStoreError(kind: .ruleExists, message: "a rule named '\(name)' exists already; remove it first or "
            + "choose another name")
    }

    /// No rule has this name.
    public static func ruleNotFound(_ name: String) -> AlertStoreError {
        AlertStoreError(kind: .notFound, message: "no rule is named '\(name)'")
    }
}
