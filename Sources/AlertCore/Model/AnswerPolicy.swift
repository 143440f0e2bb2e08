/// Who may answer an alert: named responders and groups (none named: every responder), and whether its producer is
/// barred from answering it (four eyes). Fixed when the alert is created; dismissal stays the producer's.
public struct AnswerPolicy: Sendable, Equatable {
    /// Token names allowed to answer; with `groups`, empty means every responder may.
    public var responders: [String]
    /// Groups (from the tokens file) whose members may answer.
    public var groups: [String]
    /// Whether the token that created the alert may not answer it, even an admin token.
    public var fourEyes: Bool
    /// How many distinct allowed responders must choose the same non-cancel button before the alert resolves
    /// (1: the first answer decides). Any allowed cancel resolves it at once (a veto).
    public var quorum: Int

    /// The largest `quorum`.
    public static let maximumQuorum = 20

    /// Most names in `responders` and in `groups`.
    public static let maximumNames = 64

    /// - Parameters:
    ///   - responders: Token names allowed to answer.
    ///   - groups: Groups whose members may answer.
    ///   - fourEyes: Whether the producer may not answer its own alert.
    ///   - quorum: How many distinct responders must agree.
    public init(responders: [String] = [], groups: [String] = [], fourEyes: Bool = false, quorum: Int = 1) {
        self.responders = responders
        self.groups = groups
        self.fourEyes = fourEyes
        self.quorum = quorum
    }

    /// Whether the policy names responders or groups.
    public var isRestricted: Bool { !responders.isEmpty || !groups.isEmpty }

    /// Whether the policy is the default one (anyone with the role may answer).
    public var isDefault: Bool { !isRestricted && !fourEyes && quorum == 1 }
}

/// Who answers, as far as an `AnswerPolicy` goes.
public struct Answerer: Sendable, Equatable {
    /// The token's name; `nil` only on a server without tokens (then nobody has a name and the policy names nobody).
    public var name: String?
    /// The groups the tokens file gives the name.
    public var groups: Set<String>
    /// Whether the token is an admin's: allowed past `responders` and `groups`, never past four eyes.
    public var isAdmin: Bool

    /// - Parameters:
    ///   - name: The token's name, or `nil` on a server without tokens.
    ///   - groups: Its groups.
    ///   - isAdmin: Whether it is an admin token.
    public init(name: String?, groups: Set<String> = [], isAdmin: Bool = false) {
        self.name = name
        self.groups = groups
        self.isAdmin = isAdmin
    }
}

extension Alert {
    /// Why `answerer` may not answer this alert, in a sentence; `nil` when it may. A server without tokens (no name)
    /// lets everyone answer everything: there is no identity to hold anyone to.
    public func refusal(toAnswer answerer: Answerer) -> String? {
        guard let name = answerer.name else { return nil }
        if policy.fourEyes, let owner, owner == name {
            return "alert \(id.rawValue) requires four eyes: '\(name)' created it and may not answer it"
        }
        guard policy.isRestricted, !answerer.isAdmin, !policy.responders.contains(name),
              !policy.groups.contains(where: answerer.groups.contains) else { return nil }
        let allowed = policy.responders.map { "'\($0)'" } + policy.groups.map { "group '\($0)'" }
        return "'\(name)' may not answer alert \(id.rawValue); it may be answered by "
            + allowed.joined(separator: ", ")
    }
}

extension AlertDraft {
    /// Appends an issue for each bad name in the answer policy: names are spelled like token names
    /// (`[A-Za-z0-9._-]{1,64}`), at most `AnswerPolicy.maximumNames` of each, none twice.
    func checkPolicy(issues: inout [FieldIssue]) {
        for (member, names) in [("responders", policy.responders), ("groups", policy.groups)] {
            if names.count > AnswerPolicy.maximumNames {
                issues.append(FieldIssue(pointer: "/\(member)", detail: "\(names.count) \(member) given; at most "
                    + "\(AnswerPolicy.maximumNames) are allowed"))
            }
            var seen: Set<String> = []
            for (index, name) in names.enumerated() {
                if !Self.isValidPresenter(name) {
                    issues.append(FieldIssue(pointer: "/\(member)/\(index)",
                                             detail: "'\(name)' must match [A-Za-z0-9._-]{1,64}"))
                } else if !seen.insert(name).inserted {
                    issues.append(FieldIssue(pointer: "/\(member)/\(index)", detail: "'\(name)' is given twice"))
                }
            }
        }
        checkQuorum(issues: &issues)
    }

    /// Appends an issue when `quorum` is out of range, combined with text fields (each vote would type its own
    /// values, and no one set of them would be the agreed one), or larger than the responders named (when only
    /// responders are named, nobody else may vote).
    private func checkQuorum(issues: inout [FieldIssue]) {
        let quorum = policy.quorum
        if !(1...AnswerPolicy.maximumQuorum).contains(quorum) {
            issues.append(FieldIssue(pointer: "/quorum",
                                     detail: "quorum \(quorum) is out of range; it must be 1 to \(AnswerPolicy.maximumQuorum)"))
        } else if quorum > 1 && !fields.isEmpty {
            issues.append(FieldIssue(pointer: "/quorum", detail: "quorum \(quorum) cannot be combined with text "
                + "fields: votes choose a button only; use quorum 1 for an alert with fields"))
        } else if quorum > 1, !policy.responders.isEmpty, policy.groups.isEmpty, quorum > policy.responders.count {
            issues.append(FieldIssue(pointer: "/quorum", detail: "quorum \(quorum) is more than the "
                + "\(policy.responders.count) responders named, so it could never be reached"))
        }
    }
}
