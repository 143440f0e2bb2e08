/// Completion-handler twins of the async calls, for code written the UIKit way (the seeds' `@IBAction`s): each
/// returns at once, and the chosen button's action and then `completion` run on the main actor, so they may touch
/// main-actor state. Each returns its Task; cancelling it withdraws the alert (unless `dismissesOnCancel` is off)
/// and completes with `.cancelled`.
///
/// Each takes `completion` without a default (pass `nil` to need none), so a call without one is always the async
/// call: in top-level code Swift's overload ranking otherwise picks the twin even under `await`, and
/// `try await AlertController.simpleAlert("Disk full")` would return at once with the alert pending.
extension AlertController {
    /// The seed `AlertController.alert(title:message:actionTitles:actions:style:presenter:)` with a completion.
    /// - Parameters: as the async `alert(title:message:actionTitles:actions:style:presenter:timeout:)`, and
    ///   `completion`, which gets the Result or the error.
    @discardableResult
    public func alert(
        title: String?, message: String?, actionTitles: [String], actions: [(@MainActor () -> Void)?] = [],
        style: AlertStyle = .alert, presenter: String? = nil, timeout: Double? = nil,
        completion: (@MainActor (Result<RemoteResult, AlertClientError>) -> Void)?
    ) -> Task<Void, Never> {
        Self.complete(using: { self }, actionTitles, actions, title, message, style, presenter, timeout, completion)
    }

    /// `simpleAlert(_:timeout:)` with a completion.
    @discardableResult
    public func simpleAlert(
        _ message: String, timeout: Double? = nil,
        completion: (@MainActor (Result<RemoteResult, AlertClientError>) -> Void)?
    ) -> Task<Void, Never> {
        Self.complete(using: { self }, { controller async throws(AlertClientError) in
            try await controller.simpleAlert(message, timeout: timeout)
        }, then: completion)
    }

    /// `actionSheet(title:message:tag:destructive:buttons:presenter:animated:timeout:)` with a completion that
    /// gets the chosen index.
    @discardableResult
    public func actionSheet(
        title: String?, message: String?, tag: Int = 0, destructive: [String] = [], buttons: [String],
        presenter: String? = nil, animated: Bool = true, timeout: Double? = nil,
        completion: (@MainActor (Result<Int, AlertClientError>) -> Void)?
    ) -> Task<Void, Never> {
        Self.complete(using: { self }, { controller async throws(AlertClientError) in
            try await controller.actionSheet(
                title: title, message: message, tag: tag, destructive: destructive, buttons: buttons,
                presenter: presenter, animated: animated, timeout: timeout)
        }, then: completion)
    }

    /// `alert(title:message:tag:fields:buttons:presenter:animated:timeout:)` with a completion that gets `ok`
    /// and the values.
    @discardableResult
    public func alert(
        title: String?, message: String?, tag: Int = 0, fields: [FieldInput], buttons: [String],
        presenter: String? = nil, animated: Bool = true, timeout: Double? = nil,
        completion: (@MainActor (Result<(ok: Bool, values: [String]), AlertClientError>) -> Void)?
    ) -> Task<Void, Never> {
        Self.complete(using: { self }, { controller async throws(AlertClientError) in
            try await controller.alert(
                title: title, message: message, tag: tag, fields: fields, buttons: buttons, presenter: presenter,
                animated: animated, timeout: timeout)
        }, then: completion)
    }

    // MARK: static, on `shared`

    /// `shared.alert(title:message:actionTitles:actions:style:presenter:timeout:completion:)`: the seeds'
    /// `AlertController.alert(…, actions: [{ debugLabel = "Cancel" }, { debugLabel = "OK" }])` as written.
    @discardableResult
    public static func alert(
        title: String?, message: String?, actionTitles: [String], actions: [(@MainActor () -> Void)?] = [],
        style: AlertStyle = .alert, presenter: String? = nil, timeout: Double? = nil,
        completion: (@MainActor (Result<RemoteResult, AlertClientError>) -> Void)?
    ) -> Task<Void, Never> {
        complete(using: { () throws(AlertClientError) in try shared }, actionTitles, actions, title, message, style,
                 presenter, timeout, completion)
    }

    /// `shared.simpleAlert(_:timeout:completion:)`.
    @discardableResult
    public static func simpleAlert(
        _ message: String, timeout: Double? = nil,
        completion: (@MainActor (Result<RemoteResult, AlertClientError>) -> Void)?
    ) -> Task<Void, Never> {
        complete(using: { () throws(AlertClientError) in try shared }, { controller async throws(AlertClientError) in
            try await controller.simpleAlert(message, timeout: timeout)
        }, then: completion)
    }

    // MARK: helpers

    /// Posts an alert with `actionTitles`, runs the chosen button's action on the main actor, then `completion`.
    private static func complete(
        using controller: @escaping @Sendable () throws(AlertClientError) -> AlertController,
        _ actionTitles: [String], _ actions: [(@MainActor () -> Void)?], _ title: String?, _ message: String?,
        _ style: AlertStyle, _ presenter: String?, _ timeout: Double?,
        _ completion: (@MainActor (Result<RemoteResult, AlertClientError>) -> Void)?
    ) -> Task<Void, Never> {
        let input = AlertInput(
            title: title, message: message, style: style, presenter: presenter,
            buttons: actionTitles.map { ButtonInput($0) }, timeout: timeout)
        let work = { @Sendable (controller: AlertController) async throws(AlertClientError) in
            try await controller.present(input)
        }
        return complete(using: controller, work, then: { @MainActor outcome in
            if case .success(let result) = outcome, let action = chosenAction(actions, for: result) { action() }
            completion?(outcome)
        })
    }

    /// Runs `work` on the controller in a Task and hands its outcome to `completion` on the main actor.
    private static func complete<T: Sendable>(
        using controller: @escaping @Sendable () throws(AlertClientError) -> AlertController,
        _ work: @escaping @Sendable (AlertController) async throws(AlertClientError) -> T,
        then completion: (@MainActor (Result<T, AlertClientError>) -> Void)?
    ) -> Task<Void, Never> {
        Task {
            let outcome: Result<T, AlertClientError>
            do throws(AlertClientError) {
                outcome = .success(try await work(try controller()))
            } catch {
                outcome = .failure(error)
            }
            await completion?(outcome)
        }
    }

    /// The action of the button a responder chose; none for a dismissal or an expiry, as in UIKit.
    static func chosenAction<Action>(_ actions: [Action?], for result: RemoteResult) -> Action? {
        guard result.isAnswered, actions.indices.contains(result.buttonIndex) else { return nil }
        return actions[result.buttonIndex]
    }
}
