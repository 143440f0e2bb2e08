/// A normalized button of an alert, as the server returns it (`Button` in `openapi.yaml`).
public struct RemoteButton: Codable, Sendable, Equatable, Hashable {
    /// Position in the alert's `buttons`.
    public var index: Int
    /// The button's title.
    public var title: String
    /// `default`, `cancel` or `destructive`.
    public var style: String

    /// Whether this is the alert's cancel button (style `cancel`, always at index 0).
    public var isCancel: Bool { style == "cancel" }
    /// Whether this button is marked destructive (drawn in red).
    public var isDestructive: Bool { style == "destructive" }

    /// - Parameters:
    ///   - index: Position in the alert's `buttons`.
    ///   - title: The button's title.
    ///   - style: `default`, `cancel` or `destructive`.
    public init(index: Int, title: String, style: String) {
        self.index = index
        self.title = title
        self.style = style
    }
}
