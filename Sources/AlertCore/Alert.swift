import Foundation

/// A question put to a person: what `AlertStore.create(_:)` returns, after the rules.
public struct Alert: Sendable, Equatable {
    /// The identifier.
    public var id: AlertID
    /// The creation order: unique and increasing within a store.
    public var sequence: UInt64
    /// The title.
    public var title: String
    /// The message.
    public var message: String
    /// How the alert is presented.
    public var style: AlertStyle
    /// An integer echoed back to the producer.
    public var tag: Int64
    /// The screen or queue the alert is addressed to.
    public var presenter: String
    /// A flag echoed back for clients.
    public var animated: Bool
    /// The buttons, indexed 0..<n; with more than one, index 0 is the cancel button.
    public var buttons: [AlertButton]
    /// The text fields, indexed 0..<n.
    public var fields: [AlertField]
    /// The completion, or `nil` while pending.
    public var result: AlertResult?
    /// When the alert was created.
    public var createdAt: Date
    /// When the alert expires, or `nil` when it has no timeout.
    public var expiresAt: Date?
    /// Where the result is POSTed when the alert resolves, and how that is going; `nil` without a callback.
    public var delivery: WebhookDelivery?
    /// Who created it (the name of the producer's credential), or `nil` when it was created anonymously.
    public var owner: String?
    /// Who may answer it (`AnswerPolicy`): everyone with the role unless the producer said otherwise.
    public var policy = AnswerPolicy()

    /// Creates an alert as it is, without applying any rule (the store applies them in `create`).
    ///
    /// - Parameters:
    ///   - id: The identifier.
    ///   - sequence: The creation order.
    ///   - title: The title.
    ///   - message: The message.
    ///   - style: How it is presented.
    ///   - tag: An integer echoed back.
    ///   - presenter: The screen or queue it is addressed to.
    ///   - animated: A flag echoed back.
    ///   - buttons: The buttons.
    ///   - fields: The text fields.
    ///   - result: The completion, or `nil` while pending.
    ///   - createdAt: When it was created.
    ///   - expiresAt: When it expires, or `nil`.
    ///   - delivery: The callback delivery, or `nil` without a callback.
    ///   - owner: Who created it, or `nil` for nobody in particular.
    public init(
        id: AlertID,
        sequence: UInt64,
        title: String,
        message: String,
        style: AlertStyle,
        tag: Int64,
        presenter: String,
        animated: Bool,
        buttons: [AlertButton],
        fields: [AlertField],
        result: AlertResult? = nil,
        createdAt: Date,
        expiresAt: Date? = nil,
        delivery: WebhookDelivery? = nil,
        owner: String? = nil
    ) {
        self.id = id
        self.sequence = sequence
        self.title = title
        self.message = message
        self.style = style
        self.tag = tag
        self.presenter = presenter
        self.animated = animated
        self.buttons = buttons
        self.fields = fields
        self.result = result
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.delivery = delivery
        self.owner = owner
    }

    /// `pending` until the alert has a result, then `resolved`.
    public var state: AlertState { result == nil ? .pending : .resolved }

    /// The button whose style is `cancel`, if any.
    public var cancelButton: AlertButton? { buttons.first { $0.style == .cancel } }
}
