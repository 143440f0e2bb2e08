/// How an alert is presented: a centred alert or an action sheet (UIKit's `UIAlertController.Style`).
public enum AlertStyle: String, Codable, Sendable, CaseIterable {
    /// A centred alert; may have text fields.
    case alert
    /// An action sheet; no text fields, the cancel button drawn at the bottom.
    case actionSheet
}
