import Foundation

/// The tool call an agent's approval alert asks about (the MCP `approve` tool, `alertctl hook claude-code`): the
/// tool's name and its input's members, for rules to match (`AnswerRule`). Each input member is kept as text: a
/// string as it is, anything else as compact JSON. The alert's message shows the whole input to people.
public struct ToolCall: Sendable, Equatable {
    /// The tool's name (`Bash`): 1 to `maximumName` characters.
    public var name: String
    /// The input's top-level members as text, by member name.
    public var input: [String: String]

    /// Longest tool name, and longest input member name.
    public static let maximumName = 256
    /// Most input members.
    public static let maximumMembers = 64
    /// Longest input member value, in characters.
    public static let maximumValue = 4096

    public init(name: String, input: [String: String] = [:]) {
        self.name = name
        self.input = input
    }

    /// Appends an issue for a name or input out of bounds, at `/tool` and `/toolInput/<member>`.
    func check(issues: inout [FieldIssue]) {
        if name.isEmpty || name.count > Self.maximumName {
            issues.append(FieldIssue(pointer: "/tool", detail: "tool is \(name.count) characters; give 1 to "
                + "\(Self.maximumName)"))
        }
        if input.count > Self.maximumMembers {
            issues.append(FieldIssue(pointer: "/toolInput", detail: "toolInput has \(input.count) members; at most "
                + "\(Self.maximumMembers) are allowed"))
        }
        for (member, value) in input.sorted(by: { $0.key < $1.key }) {
            if member.isEmpty || member.count > Self.maximumName {
                issues.append(FieldIssue(pointer: "/toolInput", detail: "a toolInput member name is "
                    + "\(member.count) characters; give 1 to \(Self.maximumName)"))
            } else if value.count > Self.maximumValue {
                issues.append(FieldIssue(pointer: "/toolInput/\(member)", detail: "toolInput member '\(member)' is "
                    + "\(value.count) characters; at most \(Self.maximumValue) are allowed"))
            }
        }
    }
}

/// A rule that answers alerts: every pending alert that matches it, when the rule is made and whenever one is
/// created later, is answered at once with `button`, as responder `rule:<name>`, until the rule expires or is
/// removed.
///
/// A rule never answers an alert whose producer asked for people: one that names `responders` or `groups`, requires
/// `fourEyes`, or has a `quorum` above 1. An alert with text fields is answered with each field's prefilled text.
/// When several rules match one alert, the oldest (by `createdAt`, then by name) answers it.
public struct AnswerRule: Sendable, Equatable {
    /// Unique among rules; spelled like a token name (`[A-Za-z0-9._-]{1,64}`).
    public var name: String
    /// What an alert must be like to be answered.
    public var match: RuleMatch
    /// The title of the button the rule answers with; an alert without exactly one button of this title does not
    /// match.
    public var button: String
    /// When the rule stops matching, or `nil` for never. An expired rule is kept (listed as expired) until removed.
    public var expiresAt: Date?
    /// The token that made the rule, or `nil` on a server without tokens.
    public var createdBy: String?
    /// When the rule was made.
    public var createdAt: Date

    /// Most rules a store keeps.
    public static let maximumRules = 1000

    public init(
        name: String, match: RuleMatch, button: String, expiresAt: Date? = nil, createdBy: String? = nil,
        createdAt: Date = Date()
    ) {
        self.name = name
        self.match = match
        self.button = button
        self.expiresAt = expiresAt
        self.createdBy = createdBy
        self.createdAt = createdAt
    }

    /// The responder name a rule answers as.
    public var responder: String { Self.responderPrefix + name }

    /// What a rule's responder name starts with.
    public static let responderPrefix = "rule:"

    /// Whether the rule has expired by `now`.
    public func isExpired(at now: Date) -> Bool {
        expiresAt.map { $0 <= now } ?? false
    }

    /// The index of the button this rule answers `alert` with, or `nil` when the rule does not answer it: it
    /// expired, the alert is resolved or asked for people, a matcher fails, or no single button has the title.
    public func answer(for alert: Alert, at now: Date) -> Int? {
        guard !isExpired(at: now), alert.result == nil, alert.policy.isDefault, match.matches(alert) else { return nil }
        let buttons = alert.buttons.filter { $0.title == button }
        return buttons.count == 1 ? buttons[0].index : nil
    }

    /// Every problem with the rule, each naming its member: the name's spelling, the button's title, each
    /// matcher's length, an expiry not in the future, and a rule that matches everything.
    public func issues(at now: Date) -> [FieldIssue] {
        var issues: [FieldIssue] = []
        if !AlertDraft.isValidPresenter(name) {
            issues.append(FieldIssue(pointer: "/name", detail: "name must be 1 to 64 characters of A-Z, a-z, 0-9, "
                + "'.', '_' and '-'"))
        }
        if button.isEmpty || button.count > 256 {
            issues.append(FieldIssue(pointer: "/button", detail: "button is the title of the button to answer with: "
                + "give 1 to 256 characters"))
        }
        if let expiresAt, expiresAt <= now {
            issues.append(FieldIssue(pointer: "/expiresAt", detail: "expiresAt is not in the future"))
        }
        match.check(issues: &issues)
        return issues
    }
}

/// What an alert must be like for a rule to answer it: every matcher given must match (a rule needs at least one).
/// Texts are globs: `*` matches any run of characters, `?` any one character, anything else itself (no glob
/// character: an exact match).
public struct RuleMatch: Sendable, Equatable {
    /// The alert's producer (its owner token name); an alert created without a name never matches.
    public var owner: String?
    /// The alert's presenter.
    public var presenter: String?
    /// The alert's tag, exactly.
    public var tag: Int64?
    /// The alert's title.
    public var title: String?
    /// The tool name of an agent's approval (`ToolCall.name`); an alert without a tool never matches.
    public var tool: String?
    /// Members of the approval's tool input, each matched against the member's text (`ToolCall.input`); a member
    /// the alert's input lacks never matches.
    public var toolInput: [String: String]

    /// Longest glob.
    public static let maximumGlob = 4096

    public init(
        owner: String? = nil, presenter: String? = nil, tag: Int64? = nil, title: String? = nil,
        tool: String? = nil, toolInput: [String: String] = [:]
    ) {
        self.owner = owner
        self.presenter = presenter
        self.tag = tag
        self.title = title
        self.tool = tool
        self.toolInput = toolInput
    }

    /// Whether every matcher given matches `alert`.
    public func matches(_ alert: Alert) -> Bool {
        func text(_ glob: String?, _ value: String?) -> Bool {
            guard let glob else { return true }
            guard let value else { return false }
            return Glob.matches(glob, value)
        }
        guard text(owner, alert.owner), text(presenter, alert.presenter), text(title, alert.title),
              tag.map({ $0 == alert.tag }) ?? true, text(tool, alert.tool?.name) else { return false }
        return toolInput.allSatisfy { member, glob in text(glob, alert.tool?.input[member]) }
    }

    /// Whether no matcher is given: such a rule would answer every alert, and is refused.
    public var isEmpty: Bool {
        owner == nil && presenter == nil && tag == nil && title == nil && tool == nil && toolInput.isEmpty
    }

    func check(issues: inout [FieldIssue]) {
        if isEmpty {
            issues.append(FieldIssue(pointer: "/match", detail: "give at least one matcher (owner, presenter, tag, "
                + "title, tool, toolInput): a rule that matches every alert is not allowed"))
        }
        let texts: [(String, String?)] = [("owner", owner), ("presenter", presenter), ("title", title), ("tool", tool)]
        for (member, glob) in texts {
            guard let glob else { continue }
            if glob.isEmpty || glob.count > Self.maximumGlob {
                issues.append(FieldIssue(pointer: "/match/\(member)", detail: "match.\(member) is \(glob.count) "
                    + "characters; give 1 to \(Self.maximumGlob)"))
            }
        }
        if !toolInput.isEmpty, tool == nil {
            issues.append(FieldIssue(pointer: "/match/toolInput", detail: "match.toolInput needs match.tool: name "
                + "the tool whose input it matches"))
        }
        if toolInput.count > ToolCall.maximumMembers {
            issues.append(FieldIssue(pointer: "/match/toolInput", detail: "match.toolInput has \(toolInput.count) "
                + "members; at most \(ToolCall.maximumMembers) are allowed"))
        }
        for (member, glob) in toolInput.sorted(by: { $0.key < $1.key }) where glob.isEmpty
            || glob.count > Self.maximumGlob || member.isEmpty || member.count > ToolCall.maximumName {
            issues.append(FieldIssue(pointer: "/match/toolInput/\(member)", detail: "match.toolInput member "
                + "'\(member)' needs a name of 1 to \(ToolCall.maximumName) characters and a glob of 1 to "
                + "\(Self.maximumGlob)"))
        }
    }
}

/// Glob matching on characters: `*` any run (also empty), `?` any one character, anything else itself.
public enum Glob {
    /// Whether `text` matches `pattern` whole.
    public static func matches(_ pattern: String, _ text: String) -> Bool {
        let pattern = Array(pattern), text = Array(text)
        var (p, t) = (0, 0)
        var star: Int?
        var resume = 0
        while t < text.count {
            if p < pattern.count, pattern[p] == "?" || pattern[p] == text[t] && pattern[p] != "*" {
                p += 1
                t += 1
            } else if p < pattern.count, pattern[p] == "*" {
                star = p
                resume = t
                p += 1
            } else if let star {
                p = star + 1
                resume += 1
                t = resume
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}
