/// The seeds' alert API (`AlertController` and `WCSAlertController`) over alertd, async/await first.
///
/// Each call posts an alert and waits for its Result with `AlertClient.waitForResult(_:giveUpAfter:)`: across
/// long-poll time-outs and a briefly unreachable server. Cancelling the calling Task stops waiting (throws
/// `.cancelled`) but leaves the alert pending; `dismiss(_:)` withdraws it.
public final class AlertController: Sendable {
    /// The HTTP client underneath.
    public let client: AlertClient

    /// - Parameter client: The client to post and wait with.
    public init(client: AlertClient) {
        self.client = client
    }

    /// The shared controller, for `ALERTD_URL` (default `http://127.0.0.1:8080`).
    public static let shared = AlertController(client: AlertClient.fromEnvironment())

    /// Posts `input`, waits for its Result and returns it.
    /// - Parameters:
    ///   - input: The alert.
    ///   - onCreated: Called once the server created it (with its id, for `dismiss(_:)`), before waiting.
    /// - Returns: The Result (answered, dismissed or expired).
    @discardableResult
    public func present(
        _ input: AlertInput, onCreated: (@Sendable (RemoteAlert) -> Void)? = nil
    ) async throws(AlertClientError) -> RemoteResult {
        let alert = try await client.create(input)
        onCreated?(alert)
        return try await client.waitForResult(alert.id)
    }

    /// The seed `AlertController.alert(title:message:actionTitles:actions:style:presenter:)`.
    ///
    /// Buttons keep the order of `actionTitles` (the left-most is the cancel button when there are several; none
    /// means one `OK` button). When a responder answers, the chosen button's action, `actions[buttonIndex]`, runs
    /// (if there is one); a dismissal or an expiry runs no action, as UIKit runs no handler when an alert is
    /// dismissed without a tap.
    /// - Parameters:
    ///   - title: Title.
    ///   - message: Message.
    ///   - actionTitles: Button titles, in order.
    ///   - actions: One optional closure per title.
    ///   - style: `.alert` or `.actionSheet`.
    ///   - presenter: The presenter to address; `nil` means root.
    /// - Returns: The Result.
    @discardableResult
    public func alert(
        title: String?, message: String?, actionTitles: [String], actions: [(@Sendable () -> Void)?] = [],
        style: AlertStyle = .alert, presenter: String? = nil
    ) async throws(AlertClientError) -> RemoteResult {
        let input = AlertInput(
            title: title, message: message, style: style, presenter: presenter,
            buttons: actionTitles.map { ButtonInput($0) })
        let result = try await present(input)
        if result.isAnswered, actions.indices.contains(result.buttonIndex), let action = actions[result.buttonIndex] {
            action()
        }
        return result
    }

    /// The seed `simpleAlert(_:)`: a message with one `OK` button.
    /// - Parameter message: The message.
    /// - Returns: The Result.
    @discardableResult
    public func simpleAlert(_ message: String) async throws(AlertClientError) -> RemoteResult {
        try await alert(title: nil, message: message, actionTitles: ["OK"])
    }

    /// `WCSAlertController`'s action sheet.
    /// - Parameters:
    ///   - title: Title.
    ///   - message: Message.
    ///   - tag: Integer echoed back.
    ///   - destructive: Titles of buttons to mark destructive (not the cancel button, the first one).
    ///   - buttons: Button titles, in order; the first is the cancel button when there are several.
    ///   - presenter: The presenter to address; `nil` means root.
    ///   - animated: Echoed back.
    /// - Returns: The chosen button's index into `buttons` (the cancel button's for a dismissal or expiry).
    public func actionSheet(
        title: String?, message: String?, tag: Int = 0, destructive: [String] = [], buttons: [String],
        presenter: String? = nil, animated: Bool = true
    ) async throws(AlertClientError) -> Int {
        let input = AlertInput(
            title: title, message: message, style: .actionSheet, tag: Int64(tag), presenter: presenter,
            animated: animated, buttons: buttons.map { ButtonInput($0) }, destructive: destructive)
        return try await present(input).buttonIndex
    }

    /// `WCSAlertController`'s alert with text fields.
    /// - Parameters:
    ///   - title: Title.
    ///   - message: Message.
    ///   - tag: Integer echoed back.
    ///   - fields: Text fields.
    ///   - buttons: Button titles, in order; the first is the cancel button when there are several.
    ///   - presenter: The presenter to address; `nil` means root.
    ///   - animated: Echoed back.
    /// - Returns: `ok`, true when a responder chose a button other than cancel (false for cancel, a dismissal or
    ///   an expiry), and one value per field, secure ones included.
    public func alert(
        title: String?, message: String?, tag: Int = 0, fields: [FieldInput], buttons: [String],
        presenter: String? = nil, animated: Bool = true
    ) async throws(AlertClientError) -> (ok: Bool, values: [String]) {
        let input = AlertInput(
            title: title, message: message, tag: Int64(tag), presenter: presenter, animated: animated,
            buttons: buttons.map { ButtonInput($0) }, fields: fields)
        let result = try await present(input)
        return (result.isAccepted, result.values.map { $0 ?? "" })
    }

    /// Withdraws an alert (posted by this controller or not): it resolves as its cancel button, `dismissed`.
    /// - Parameter id: The alert's id.
    /// - Returns: The Result of the dismissal.
    /// - Throws: `.server` 409 with `problem.result` when it had already resolved.
    @discardableResult
    public func dismiss(_ id: String) async throws(AlertClientError) -> RemoteResult {
        try await client.dismiss(id)
    }
}
