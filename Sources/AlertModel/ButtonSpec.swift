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
