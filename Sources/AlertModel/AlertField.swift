/// A text field of a created alert.
public struct AlertField: Sendable, Equatable {
    /// The field's position in the alert's `fields`, and of its value in a result's `values`.
    public var index: Int
    /// The initial text.
    public var text: String
    /// The hint shown while the field is empty.
    public var placeholder: String
    /// Whether the text is a secret.
    public var secure: Bool
    /// The keyboard to show.
    public var keyboard: KeyboardType

    /// Creates a text field.
    ///
    /// - Parameters:
    ///   - index: The position in the alert's `fields`.
    ///   - text: The initial text.
    ///   - placeholder: The hint shown while the field is empty.
    ///   - secure: Whether the text is a secret.
    ///   - keyboard: The keyboard to show.
    public init(index: Int, text: String, placeholder: String, secure: Bool, keyboard: KeyboardType) {
        self.index = index
        self.text = text
        self.placeholder = placeholder
        self.secure = secure
        self.keyboard = keyboard
    }
}
