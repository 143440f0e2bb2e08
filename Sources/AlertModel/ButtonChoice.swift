/// The button a responder chose.
public enum ButtonChoice: Sendable, Equatable {
    /// The button at this index of the alert's `buttons`.
    case index(Int)
    /// The first button with exactly this title.
    case title(String)
}
