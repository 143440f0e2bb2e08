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
