/// The completion of an alert (`Result` in `openapi.yaml`).
public struct RemoteResult: Codable, Sendable, Equatable, Hashable {
    /// Index of the chosen button in the alert's normalized `buttons`.
    public var buttonIndex: Int
    /// Title of the chosen button.
    public var buttonTitle: String
    /// `false` when the chosen button is the cancel button, else `true`.
    public var ok: Bool
    /// One entry per field, in field order; `nil` for a secure field's value in lists.
    public var values: [String?]
    /// `answered`, `dismissed` or `expired`.
    public var resolution: String
    /// RFC 3339 time of the resolution.
    public var resolvedAt: String
    /// Who resolved it: the name of the token that answered (or dismissed) it; `nil` for an expiry and on a server
    /// without tokens.
    public var responder: String?

    /// Whether a responder chose the button (rather than the producer dismissing it or a timeout).
    public var isAnswered: Bool { resolution == "answered" }

    /// Whether a responder chose a button other than the cancel button: what `alertctl … --wait` exits 0 for.
    public var isAccepted: Bool { ok && isAnswered }

    /// - Parameters:
    ///   - buttonIndex: The chosen button's index.
    ///   - buttonTitle: The chosen button's title.
    ///   - ok: Whether it is not the cancel button.
    ///   - values: One value per field.
    ///   - resolution: `answered`, `dismissed` or `expired`.
    ///   - resolvedAt: RFC 3339 time.
    ///   - responder: Who resolved it, or `nil`.
    public init(
        buttonIndex: Int, buttonTitle: String, ok: Bool, values: [String?], resolution: String, resolvedAt: String,
        responder: String? = nil
    ) {
        self.buttonIndex = buttonIndex
        self.buttonTitle = buttonTitle
        self.ok = ok
        self.values = values
        self.resolution = resolution
        self.resolvedAt = resolvedAt
        self.responder = responder
    }
}
