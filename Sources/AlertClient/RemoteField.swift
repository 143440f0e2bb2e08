/// A text field of an alert, as the server returns it (`Field` in `openapi.yaml`).
public struct RemoteField: Codable, Sendable, Equatable, Hashable {
    /// Position in the alert's `fields`.
    public var index: Int
    /// The initial text; `nil` in lists when the field is `secure` (the server redacts it).
    public var text: String?
    /// Placeholder shown while the field is empty.
    public var placeholder: String
    /// Whether typed text must be masked and never shown or logged.
    public var secure: Bool
    /// The UIKit Swift name of the keyboard type, such as `default` or `emailAddress` (`keyboardType` types it).
    public var keyboard: String

    /// The keyboard type, or `nil` for a name this client does not know.
    public var keyboardType: Keyboard? { Keyboard(rawValue: keyboard) }

    /// - Parameters:
    ///   - index: Position in the alert's `fields`.
    ///   - text: The initial text, `nil` when redacted.
    ///   - placeholder: Placeholder text.
    ///   - secure: Whether the field is secure.
    ///   - keyboard: The keyboard type name.
    public init(index: Int, text: String?, placeholder: String, secure: Bool, keyboard: String) {
        self.index = index
        self.text = text
        self.placeholder = placeholder
        self.secure = secure
        self.keyboard = keyboard
    }

    /// Encodes every member, a redacted `text` as `null`, as the server does.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(index, forKey: .index)
        try container.encode(text, forKey: .text)
        try container.encode(placeholder, forKey: .placeholder)
        try container.encode(secure, forKey: .secure)
        try container.encode(keyboard, forKey: .keyboard)
    }
}
