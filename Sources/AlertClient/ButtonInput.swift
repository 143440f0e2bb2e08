/// A button to create: a title and an optional style. A string literal is a plain button.
public struct ButtonInput: Encodable, Sendable, Equatable, ExpressibleByStringLiteral {
    /// The title, 1 to 256 characters.
    public var title: String
    /// `default`, `cancel` or `destructive`; `nil` lets the server decide (the left-most becomes cancel).
    public var style: String?

    /// - Parameters:
    ///   - title: The title.
    ///   - style: `default`, `cancel`, `destructive`, or `nil`.
    public init(_ title: String, style: String? = nil) {
        self.title = title
        self.style = style
    }

    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// A button marked `cancel`; the server moves it to index 0.
    public static func cancel(_ title: String) -> ButtonInput { ButtonInput(title, style: "cancel") }

    /// A button marked `destructive`.
    public static func destructive(_ title: String) -> ButtonInput { ButtonInput(title, style: "destructive") }
}
