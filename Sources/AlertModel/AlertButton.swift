/// A button of a created alert, after the rules have put it in place.
public struct AlertButton: Sendable, Equatable {
    /// The button's position in the alert's `buttons`; an answer names it by this index.
    public var index: Int
    /// The button's title.
    public var title: String
    /// The button's role.
    public var style: ButtonStyle

    /// Creates a button.
    ///
    /// - Parameters:
    ///   - index: The position in the alert's `buttons`.
    ///   - title: The title.
    ///   - style: The role.
    public init(index: Int, title: String, style: ButtonStyle) {
        self.index = index
        self.title = title
        self.style = style
    }
}
