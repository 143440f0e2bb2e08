/// An alert to create (`AlertCreate` in `openapi.yaml`). At least one of `title` and `message` must be non-empty.
public struct AlertInput: Encodable, Sendable, Equatable {
    /// Title, at most 256 characters.
    public var title: String?
    /// Message, at most 4096 characters.
    public var message: String?
    /// `.alert` or `.actionSheet`.
    public var style: AlertStyle
    /// Integer echoed back.
    public var tag: Int64
    /// Presenter to address; `nil` means `root`.
    public var presenter: String?
    /// Echoed back for clients that animate.
    public var animated: Bool
    /// Buttons in display order; none means one `OK` button.
    public var buttons: [ButtonInput]
    /// Titles of buttons to mark destructive (WCSAlertController style).
    public var destructive: [String]
    /// Text fields (`.alert` style only).
    public var fields: [FieldInput]
    /// Seconds after which the alert expires as its cancel button; `nil` for never.
    public var timeout: Double?
    /// Token names allowed to answer; `nil` (with `groups`) for every responder.
    public var responders: [String]?
    /// Groups of the tokens file whose members may answer.
    public var groups: [String]?
    /// Whether the creating token may not answer it (four eyes).
    public var fourEyes: Bool?
    /// The tool call an agent's approval asks about, for the server's rules to match; `nil` for other alerts.
    public var tool: String?
    /// The tool's input members as text (`toolInput`); only with `tool`.
    public var toolInput: [String: String]?

    /// - Parameters: the members of `AlertCreate`; everything defaults as on the server.
    public init(
        title: String? = nil, message: String? = nil, style: AlertStyle = .alert, tag: Int64 = 0,
        presenter: String? = nil, animated: Bool = true, buttons: [ButtonInput] = [], destructive: [String] = [],
        fields: [FieldInput] = [], timeout: Double? = nil
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
    }
}
