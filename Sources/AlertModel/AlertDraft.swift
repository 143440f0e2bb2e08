/// An alert as a producer asks for it: unvalidated; `AlertStore.create(_:)` applies the rules.
public struct AlertDraft: Sendable, Equatable {
    /// The title; at least one of title and message must be non-empty.
    public var title: String
    /// The message.
    public var message: String
    /// How the alert is presented.
    public var style: AlertStyle
    /// An integer echoed back to the producer.
    public var tag: Int64
    /// The screen or queue the alert is addressed to: `[A-Za-z0-9._-]{1,64}`.
    public var presenter: String
    /// A flag echoed back for clients.
    public var animated: Bool
    /// The buttons in the order given; none means a single `OK` button.
    public var buttons: [ButtonSpec]
    /// Titles of buttons to make destructive.
    public var destructive: [String]
    /// The text fields (alert style only).
    public var fields: [FieldSpec]
    /// Seconds after which the alert expires as its cancel button, or `nil` for never.
    public var timeout: Double?
    /// A URL to POST the alert to once it resolves (checked against allowed destinations by the caller).
    public var callback: String?
    /// Who may answer the alert (`AnswerPolicy`).
    public var policy = AnswerPolicy()
    /// The tool call an agent's approval asks about (`ToolCall`), for rules to match; `nil` for other alerts.
    public var tool: ToolCall?
    /// Where the alert goes when nobody resolves it in time (`EscalationStep`), in the order the steps fire.
    public var escalation: [EscalationStep] = []

    /// Creates a draft; the defaults are the contract's.
    ///
    /// - Parameters:
    ///   - title: The title.
    ///   - message: The message.
    ///   - style: How the alert is presented.
    ///   - tag: An integer echoed back.
    ///   - presenter: The screen or queue it is addressed to.
    ///   - animated: A flag echoed back.
    ///   - buttons: The buttons in the order given.
    ///   - destructive: Titles of buttons to make destructive.
    ///   - fields: The text fields.
    ///   - timeout: Seconds until it expires, or `nil`.
    ///   - callback: A URL to POST the alert to once it resolves, or `nil`.
    public init(
        title: String = "",
        message: String = "",
        style: AlertStyle = .alert,
        tag: Int64 = 0,
        presenter: String = "root",
        animated: Bool = true,
        buttons: [ButtonSpec] = [],
        destructive: [String] = [],
        fields: [FieldSpec] = [],
        timeout: Double? = nil,
        callback: String? = nil
    ) {
        self.title = title
        self.message = message
        self.style = style
        self.tag = tag
        self.presenter = presenter
        self.animated = animated
        self.buttons = buttons
        self.destructive = destructive
        self.fields = fields
        self.timeout = timeout
        self.callback = callback
    }
}

/// A button as a producer asks for it, before the rules put it in place.
public struct ButtonSpec: Sendable, Equatable {
    /// The button's title; 1 to 256 characters.
    public var title: String
    /// The style asked for, or `nil` to let the rules choose (`default`, or `cancel` for the left-most button).
    public var style: ButtonStyle?

    /// Creates a button specification.
    ///
    /// - Parameters:
    ///   - title: The button's title.
    ///   - style: The style asked for; `nil` lets the rules choose.
    public init(title: String, style: ButtonStyle? = nil) {
        self.title = title
        self.style = style
    }
}

/// A text field as a producer asks for it.
public struct FieldSpec: Sendable, Equatable {
    /// The initial text, and the value reported when the responder leaves the field alone.
    public var text: String
    /// The grey hint shown while the field is empty.
    public var placeholder: String
    /// Whether the text is a secret (a password); secret values never appear in lists.
    public var secure: Bool
    /// The keyboard a device should show for the field.
    public var keyboard: KeyboardType

    /// Creates a text field specification.
    ///
    /// - Parameters:
    ///   - text: The initial text; at most 1024 characters.
    ///   - placeholder: The hint shown while the field is empty; at most 256 characters.
    ///   - secure: Whether the text is a secret.
    ///   - keyboard: The keyboard to show.
    public init(text: String = "", placeholder: String = "", secure: Bool = false, keyboard: KeyboardType = .default) {
        self.text = text
        self.placeholder = placeholder
        self.secure = secure
        self.keyboard = keyboard
    }
}
