/// Static conveniences forwarding to `AlertController.shared`, so calls read like the seed:
/// `try await AlertController.simpleAlert("Disk full")`.
extension AlertController {
    /// `shared.alert(title:message:actionTitles:actions:style:presenter:)`.
    @discardableResult
    public static func alert(
        title: String?, message: String?, actionTitles: [String], actions: [(@Sendable () -> Void)?] = [],
        style: AlertStyle = .alert, presenter: String? = nil
    ) async throws(AlertClientError) -> RemoteResult {
        try await shared.alert(
            title: title, message: message, actionTitles: actionTitles, actions: actions, style: style,
            presenter: presenter)
    }

    /// `shared.simpleAlert(_:)`.
    @discardableResult
    public static func simpleAlert(_ message: String) async throws(AlertClientError) -> RemoteResult {
        try await shared.simpleAlert(message)
    }

    /// `shared.actionSheet(title:message:tag:destructive:buttons:presenter:animated:)`.
    public static func actionSheet(
        title: String?, message: String?, tag: Int = 0, destructive: [String] = [], buttons: [String],
        presenter: String? = nil, animated: Bool = true
    ) async throws(AlertClientError) -> Int {
        try await shared.actionSheet(
            title: title, message: message, tag: tag, destructive: destructive, buttons: buttons,
            presenter: presenter, animated: animated)
    }

    /// `shared.alert(title:message:tag:fields:buttons:presenter:animated:)`.
    public static func alert(
        title: String?, message: String?, tag: Int = 0, fields: [FieldInput], buttons: [String],
        presenter: String? = nil, animated: Bool = true
    ) async throws(AlertClientError) -> (ok: Bool, values: [String]) {
        try await shared.alert(
            title: title, message: message, tag: tag, fields: fields, buttons: buttons, presenter: presenter,
            animated: animated)
    }

    /// `shared.dismiss(_:)`.
    @discardableResult
    public static func dismiss(_ id: String) async throws(AlertClientError) -> RemoteResult {
        try await shared.dismiss(id)
    }
}
