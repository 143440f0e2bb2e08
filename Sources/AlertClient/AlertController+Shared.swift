/// Static conveniences forwarding to `AlertController.shared`, so calls read like the seed:
/// `try await AlertController.simpleAlert("Disk full")`.
extension AlertController {
    /// The shared controller, for `ALERTD_URL` (default `http://127.0.0.1:8080`) and `ALERTD_TOKEN` or
    /// `ALERTD_TOKEN_FILE`, read from the environment once, on first use.
    /// - Throws: `.configuration` naming the variable when `ALERTD_URL` is not a URL or `ALERTD_TOKEN_FILE`
    ///   cannot be read (`AlertClient.fromEnvironment(_:)`); every static call then throws it.
    public static var shared: AlertController {
        get throws(AlertClientError) { try sharedController.get() }
    }

    private static let sharedController = Result { () throws(AlertClientError) -> AlertController in
        AlertController(client: try AlertClient.fromEnvironment())
    }

    /// `shared.alert(title:message:actionTitles:actions:style:presenter:timeout:)`, the actions run on the
    /// caller's actor.
    @discardableResult
    public static func alert(
        title: String?, message: String?, actionTitles: [String], actions: [(() -> Void)?] = [],
        style: AlertStyle = .alert, presenter: String? = nil, timeout: Double? = nil,
        isolation: isolated (any Actor)? = #isolation
    ) async throws(AlertClientError) -> RemoteResult {
        try await shared.alert(
            title: title, message: message, actionTitles: actionTitles, actions: actions, style: style,
            presenter: presenter, timeout: timeout, isolation: isolation)
    }

    /// `shared.simpleAlert(_:timeout:)`.
    @discardableResult
    public static func simpleAlert(_ message: String, timeout: Double? = nil) async throws(AlertClientError)
        -> RemoteResult
    {
        try await shared.simpleAlert(message, timeout: timeout)
    }

    /// `shared.actionSheet(title:message:tag:destructive:buttons:presenter:animated:timeout:)`.
    public static func actionSheet(
        title: String?, message: String?, tag: Int = 0, destructive: [String] = [], buttons: [String],
        presenter: String? = nil, animated: Bool = true, timeout: Double? = nil
    ) async throws(AlertClientError) -> Int {
        try await shared.actionSheet(
            title: title, message: message, tag: tag, destructive: destructive, buttons: buttons,
            presenter: presenter, animated: animated, timeout: timeout)
    }

    /// `shared.alert(title:message:tag:fields:buttons:presenter:animated:timeout:)`.
    public static func alert(
        title: String?, message: String?, tag: Int = 0, fields: [FieldInput], buttons: [String],
        presenter: String? = nil, animated: Bool = true, timeout: Double? = nil
    ) async throws(AlertClientError) -> (ok: Bool, values: [String]) {
        try await shared.alert(
            title: title, message: message, tag: tag, fields: fields, buttons: buttons, presenter: presenter,
            animated: animated, timeout: timeout)
    }

    /// `shared.dismiss(_:)`.
    @discardableResult
    public static func dismiss(_ id: String) async throws(AlertClientError) -> RemoteResult {
        try await shared.dismiss(id)
    }
}
