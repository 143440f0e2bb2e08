import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension AlertClient {
    /// Every rule, oldest first, expired ones included (`GET /v1/rules`).
    /// - Throws: `.server` 403 for a token that is not an admin's.
    public func rules() async throws(AlertClientError) -> [RemoteRule] {
        let response = try await exchange("GET", "/v1/rules")
        return try decode(RemoteRuleList.self, response).rules
    }

    /// Reads one rule (`GET /v1/rules/{name}`).
    /// - Throws: `.server` 404 `not-found` for no rule of this name, 403 for a token that is not an admin's.
    public func rule(_ name: String) async throws(AlertClientError) -> RemoteRule {
        let response = try await exchange("GET", "/v1/rules/\(segment(name))")
        return try decode(RemoteRule.self, response)
    }

    /// Makes a rule (`POST /v1/rules`); it answers every pending alert it matches before the server answers.
    /// - Returns: The rule, its `answered` listing the alerts it answered now.
    /// - Throws: `.server` 409 `rule-exists` for a name taken, 422 naming each bad member (`/match/title`, …), 403
    ///   for a token that is not an admin's.
    public func createRule(_ input: RuleInput) async throws(AlertClientError) -> RemoteRule {
        let response = try await exchange("POST", "/v1/rules", body: try encode(input))
        return try decode(RemoteRule.self, response, expecting: [201])
    }

    /// Removes a rule (`DELETE /v1/rules/{name}`): it stops answering; what it answered stays answered.
    /// - Returns: The rule as it was.
    /// - Throws: `.server` 404 `not-found` for no rule of this name, 403 for a token that is not an admin's.
    @discardableResult
    public func deleteRule(_ name: String) async throws(AlertClientError) -> RemoteRule {
        let response = try await exchange("DELETE", "/v1/rules/\(segment(name))")
        return try decode(RemoteRule.self, response)
    }
}

/// What an alert must be like for a rule to answer it (`RuleMatch` in `openapi.yaml`): every matcher given must
/// match, and at least one is given. Texts are globs: `*` any run of characters, `?` any one, anything else itself.
public struct RuleMatch: Codable, Sendable, Equatable, Hashable {
    /// The alert's `owner` (the producer's token name).
    public var owner: String?
    public var presenter: String?
    /// The alert's `tag`, exactly.
    public var tag: Int64?
    public var title: String?
    /// An agent's approval's tool (`RemoteAlert.tool`).
    public var tool: String?
    /// Globs for members of the approval's tool input (needs `tool`); `nil` for none.
    public var toolInput: [String: String]?

    /// - Parameters: the matchers; `nil` (or an empty `toolInput`) leaves one out.
    public init(
        owner: String? = nil, presenter: String? = nil, tag: Int64? = nil, title: String? = nil, tool: String? = nil,
        toolInput: [String: String]? = nil
    ) {
        self.owner = owner
        self.presenter = presenter
        self.tag = tag
        self.title = title
        self.tool = tool
        self.toolInput = toolInput?.isEmpty == true ? nil : toolInput
    }

    /// Each matcher given as `(name, text)`, in the order of `openapi.yaml`, tool input members as
    /// `toolInput.<member>` sorted by member.
    public var matchers: [(name: String, text: String)] {
        var matchers: [(name: String, text: String)] = []
        for (name, text) in [("owner", owner), ("presenter", presenter), ("tag", tag.map { String($0) }),
                             ("title", title), ("tool", tool)] {
            if let text { matchers.append((name, text)) }
        }
        for (member, glob) in (toolInput ?? [:]).sorted(by: { $0.key < $1.key }) {
            matchers.append(("toolInput.\(member)", glob))
        }
        return matchers
    }
}

/// The body of `POST /v1/rules` (`RuleInput` in `openapi.yaml`).
public struct RuleInput: Codable, Sendable, Equatable {
    /// 1 to 64 of `A-Z a-z 0-9 . _ -`.
    public var name: String
    public var match: RuleMatch
    /// The title of the button to answer with.
    public var button: String
    /// Seconds until the rule stops matching; `nil` for never.
    public var expiresIn: Double?

    /// - Parameters: the members of the body.
    public init(name: String, match: RuleMatch, button: String, expiresIn: Double? = nil) {
        self.name = name
        self.match = match
        self.button = button
        self.expiresIn = expiresIn
    }
}

/// A rule as the server returns it (`Rule` in `openapi.yaml`).
public struct RemoteRule: Codable, Sendable, Equatable {
    public var name: String
    public var match: RuleMatch
    /// The title of the button it answers with.
    public var button: String
    /// `rule:<name>`: the responder its answers are recorded as.
    public var responder: String
    /// RFC 3339 time it stops matching; `nil` for never.
    public var expiresAt: String?
    /// Whether `expiresAt` has passed (it answers nothing, and stays listed until removed).
    public var expired: Bool
    /// The admin token that made it; `nil` without tokens.
    public var createdBy: String?
    /// RFC 3339 creation time.
    public var createdAt: String
    /// On create only: the ids of the pending alerts it answered then.
    public var answered: [String]?

    /// - Parameters: the members of the JSON object.
    public init(
        name: String, match: RuleMatch, button: String, responder: String, expiresAt: String?, expired: Bool,
        createdBy: String?, createdAt: String, answered: [String]? = nil
    ) {
        self.name = name
        self.match = match
        self.button = button
        self.responder = responder
        self.expiresAt = expiresAt
        self.expired = expired
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.answered = answered
    }
}

/// The answer of `GET /v1/rules`.
private struct RemoteRuleList: Decodable {
    let rules: [RemoteRule]
}
