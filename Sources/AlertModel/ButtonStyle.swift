/// The role of a button, as in `UIAlertAction.Style`.
public enum ButtonStyle: String, Sendable, CaseIterable {
    /// An ordinary button.
    case `default`
    /// The button that declines; an alert has at most one, at index 0.
    case cancel
    /// A button that destroys or deletes something.
    case destructive
}
