/// How an alert came to be resolved.
public enum Resolution: String, Sendable, CaseIterable {
    /// A responder chose a button.
    case answered
    /// Its producer withdrew it; it resolved as the cancel button.
    case dismissed
    /// Its timeout passed; it resolved as the cancel button.
    case expired
}
