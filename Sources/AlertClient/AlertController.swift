/// The seeds' alert API (`AlertController` and `WCSAlertController`) over alertd, async/await first, with
/// completion-handler twins for code written the UIKit way (`AlertController+Completion.swift`).
///
/// Each call posts an alert and waits for its Result with `AlertClient.waitForResult(_:giveUpAfter:)`: across
/// long-poll time-outs and a briefly unreachable server. Cancelling the calling Task withdraws the alert (as UIKit
/// dismisses an alert whose presenter goes away) and throws `.cancelled`, unless `dismissesOnCancel` is off; then the
/// alert stays pending and `dismiss(_:)` withdraws it.
public final class AlertController: Sendable {
    /// The HTTP client underneath.
    public let client: AlertClient
    /// Whether cancelling the Task that waits for an alert withdraws it (`DELETE`); `true` by default.
    public let dismissesOnCancel: Bool

    /// - Parameters:
    ///   - client: The client to post and wait with.
    ///   - dismissesOnCancel: Whether cancelling the waiting Task withdraws the alert. Default `true`.
    public init(client: AlertClient, dismissesOnCancel: Bool = true) {
        self.client = client
        self.dismissesOnCancel = dismissesOnCancel
    }

    /// Posts `input`, waits for its Result and returns it.
    ///
    /// The alert is created even when the Task is cancelled while the request is on its way, so that it can be
    /// withdrawn: with `dismissesOnCancel`, a cancellation at any point after the request left withdraws it.
    /// - Parameters:
    ///   - input: The alert.
    ///   - onCreated: Called once the server created it (with its id, for `dismiss(_:)`), before waiting.
    /// - Returns: The Result (answered, dismissed or expired).
    /// - Throws: `.cancelled` when the calling Task is cancelled (the alert withdrawn unless `dismissesOnCancel` is
    ///   off), else what `create` and `waitForResult` throw.
    @discardableResult
    public func present(
        _ input: AlertInput, onCreated: (@Sendable (RemoteAlert) -> Void)? = nil
    ) async throws(AlertClientError) -> RemoteResult {
        if Task.isCancelled { throw .cancelled }
        let client = client
        // Not cancelled with the caller: an alert created after all must be known to be withdrawn.
        let creating = Task { () async -> Result<RemoteAlert, AlertClientError> in
            do throws(AlertClientError) { return .success(try await client.create(input)) } catch {
                return .failure(error)
            }
        }
        let alert = try await creating.value.get()
        onCreated?(alert)
        do throws(AlertClientError) {
            if Task.isCancelled { throw .cancelled }
            return try await client.waitForResult(alert.id)
        } catch {
            if error.kind == .cancelled, dismissesOnCancel {
                // A Task of its own: this one is cancelled, and its requests would be too.
                await Task { _ = try? await client.dismiss(alert.id) }.value
            }
            throw error
        }
    }

    /// The seed `AlertController.alert(title:message:actionTitles:actions:style:presenter:)`.
    ///
    /// Buttons keep the order of `actionTitles` (the left-most is the cancel button when there are several; none
    /// means one `OK` button). When a responder answers, the chosen button's action, `actions[buttonIndex]`, runs
    /// (if there is one) on the caller's actor, so the seeds' `actions: [{ debugLabel = "Cancel" }, …]` may touch
    /// main-actor state from a `@MainActor` caller. A dismissal or an expiry runs no action, as UIKit runs no
    /// handler when an alert is dismissed without a tap.
    /// - Parameters:
    ///   - title: Title.
    ///   - message: Message.
    ///   - actionTitles: Button titles, in order.
    ///   - actions: One optional closure per title, run on the caller's actor.
    ///   - style: `.alert` or `.actionSheet`.
    ///   - presenter: The presenter to address; `nil` means root.
    ///   - timeout: Seconds after which the alert expires as its cancel button; `nil` for never.
    ///   - isolation: The caller's actor (filled in by the compiler).
    /// - Returns: The Result.
    @discardableResult
    public func alert(
        title: String?, message: String?, actionTitles: [String], actions: [(() -> Void)?] = [],
        style: AlertStyle = .alert, presenter: String? = nil, timeout: Double? = nil,
        isolation: isolated (any Actor)? = #isolation
    ) async throws(AlertClientError) -> RemoteResult {
        let input = AlertInput(
            title: title, message: message, style: style, presenter: presenter,
            buttons: actionTitles.map { ButtonInput($0) }, timeout: timeout)
        let result = try await present(input)
        Self.chosenAction(actions, for: result)?()
        return result
    }

    /// The seed `simpleAlert(_:)`: a message with one `OK` button.
    /// - Parameters:
    ///   - message: The message.
    ///   - timeout: Seconds after which it expires; `nil` for never.
    /// - Returns: The Result.
    @discardableResult
    public func simpleAlert(_ message: String, timeout: Double? = nil) async throws(AlertClientError) -> RemoteResult {
        try await present(AlertInput(message: message, buttons: ["OK"], timeout: timeout))
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
    ///   - timeout: Seconds after which it expires as its cancel button; `nil` for never.
    /// - Returns: The chosen button's index into `buttons` (the cancel button's for a dismissal or expiry).
    public func actionSheet(
        title: String?, message: String?, tag: Int = 0, destructive: [String] = [], buttons: [String],
        presenter: String? = nil, animated: Bool = true, timeout: Double? = nil
    ) async throws(AlertClientError) -> Int {
        let input = AlertInput(
            title: title, message: message, style: .actionSheet, tag: Int64(tag), presenter: presenter,
            animated: animated, buttons: buttons.map { ButtonInput($0) }, destructive: destructive, timeout: timeout)
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
    ///   - timeout: Seconds after which it expires as its cancel button; `nil` for never.
    /// - Returns: `ok`, true when a responder chose a button other than cancel (false for cancel, a dismissal or
    ///   an expiry), and one value per field, secure ones included.
    public func alert(
        title: String?, message: String?, tag: Int = 0, fields: [FieldInput], buttons: [String],
        presenter: String? = nil, animated: Bool = true, timeout: Double? = nil
    ) async throws(AlertClientError) -> (ok: Bool, values: [String]) {
        let input = AlertInput(
            title: title, message: message, tag: Int64(tag), presenter: presenter, animated: animated,
            buttons: buttons.map { ButtonInput($0) }, fields: fields, timeout: timeout)
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
