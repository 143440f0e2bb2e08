/// How an alert is presented, as in `UIAlertController.Style`.
public enum AlertStyle: String, Sendable, CaseIterable {
    /// A modal alert; the only style that may carry text fields.
    case alert
    /// A sheet of actions; never carries text fields.
    case actionSheet
}
