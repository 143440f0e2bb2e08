/// A text field to create (`FieldInput` in `openapi.yaml`).
public struct FieldInput: Encodable, Sendable, Equatable {
    /// Initial text; also the value when an answer gives none.
    public var text: String
    /// Placeholder shown while empty.
    public var placeholder: String
    /// Whether the text is masked and kept out of lists and logs.
    public var secure: Bool
    /// The keyboard the field asks for.
    public var keyboard: Keyboard

    /// - Parameters:
    ///   - placeholder: Placeholder shown while empty.
    ///   - text: Initial text.
    ///   - secure: Whether the text is masked.
    ///   - keyboard: The keyboard the field asks for.
    public init(placeholder: String = "", text: String = "", secure: Bool = false, keyboard: Keyboard = .default) {
        self.text = text
        self.placeholder = placeholder
        self.secure = secure
        self.keyboard = keyboard
    }
}
