/// An alert as the server returns it (`Alert` in `openapi.yaml`), after the store normalized its buttons.
public struct RemoteAlert: Codable, Sendable, Equatable, Hashable, Identifiable {
    /// Opaque, URL-safe id.
    public var id: String
    /// Title; `title` or `message` is non-empty.
    public var title: String
    /// Message.
    public var message: String
    /// `alert` or `actionSheet`.
    public var style: String
    /// Integer echoed back from the producer.
    public var tag: Int64
    /// The screen or queue the alert is addressed to (`root` by default).
    public var presenter: String
    /// The name of the token that created the alert; `nil` when alertd runs without tokens.
    public var owner: String?
    /// Echoed back for clients that animate.
    public var animated: Bool
    /// Normalized buttons; with more than one, index 0 is the cancel button.
    public var buttons: [RemoteButton]
    /// Text fields (always empty for an action sheet).
    public var fields: [RemoteField]
    /// `pending` or `resolved`.
    public var state: String
    /// `nil` while pending, else the completion.
    public var result: RemoteResult?
    /// RFC 3339 creation time.
    public var createdAt: String
    /// RFC 3339 time the timeout resolves the alert; `nil` without a timeout.
    public var expiresAt: String?
    /// Token names allowed to answer (with `groups` empty too: every responder); `nil` from a server without them.
    public var responders: [String]?
    /// Groups (of the tokens file) whose members may answer.
    public var groups: [String]?
    /// Whether the token that created the alert (`owner`) may not answer it.
    public var fourEyes: Bool?
    /// For an agent's approval: the tool asking (`Bash`); `nil` for any other alert.
    public var tool: String?
    /// With `tool`: each member of the tool's input as text (a string as it is, anything else as compact JSON).
    public var toolInput: [String: String]?

    /// Whether the alert still waits for an answer.
    public var isPending: Bool { state == "pending" }

    /// The button a dismissal, an expiry or Esc chooses: the button with style `cancel`, or the only button when
    /// there is just one (as the server does).
    public var cancelButton: RemoteButton? {
        buttons.first(where: \.isCancel) ?? (buttons.count == 1 ? buttons.first : nil)
    }

    /// The style as an enum, `nil` for a style this client does not know.
    public var alertStyle: AlertStyle? { AlertStyle(rawValue: style) }

    /// - Parameters: every member of the JSON object, in order (`owner` last, as it came later).
    public init(
        id: String, title: String, message: String, style: String, tag: Int64, presenter: String, animated: Bool,
        buttons: [RemoteButton], fields: [RemoteField], state: String, result: RemoteResult?, createdAt: String,
        expiresAt: String?, owner: String? = nil
    ) {
        self.id = id
        self.title = title
        self.message = message
        self.style = style
        self.tag = tag
        self.presenter = presenter
        self.owner = owner
        self.animated = animated
        self.buttons = buttons
        self.fields = fields
        self.state = state
        self.result = result
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    /// Encodes every member, `null` included, as the server does.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(message, forKey: .message)
        try container.encode(style, forKey: .style)
        try container.encode(tag, forKey: .tag)
        try container.encode(presenter, forKey: .presenter)
        try container.encode(owner, forKey: .owner)
        try container.encodeIfPresent(responders, forKey: .responders)
        try container.encodeIfPresent(groups, forKey: .groups)
        try container.encodeIfPresent(fourEyes, forKey: .fourEyes)
        try container.encodeIfPresent(tool, forKey: .tool)
        try container.encodeIfPresent(toolInput, forKey: .toolInput)
        try container.encode(animated, forKey: .animated)
        try container.encode(buttons, forKey: .buttons)
        try container.encode(fields, forKey: .fields)
        try container.encode(state, forKey: .state)
        try container.encode(result, forKey: .result)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(expiresAt, forKey: .expiresAt)
    }

    /// Whether `identity` (`AlertClient.me()`) may answer this alert, by the server's rule: without a name (no
    /// tokens) always; never its own alert under `fourEyes`; else when neither `responders` nor `groups` names
    /// anyone, when either names it, or when it is an admin.
    public func mayBeAnswered(by identity: Identity) -> Bool {
        guard let name = identity.name else { return true }
        if fourEyes == true, owner == name { return false }
        let (responders, groups) = (responders ?? [], groups ?? [])
        if responders.isEmpty && groups.isEmpty { return true }
        return identity.role == "admin" || responders.contains(name) || groups.contains(where: identity.groups.contains)
    }
}
