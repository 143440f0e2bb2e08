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
    /// The votes so far of a quorum alert (`policy.quorum` > 1), oldest first; empty otherwise.
    public var votes: [Vote] = []
    /// The tool call an agent's approval alert asks about, for rules to match; `nil` for other alerts.
    public var tool: ToolCall?
    /// Where the alert goes when nobody resolves it in time, in the order the steps fire (`EscalationStep`).
    public var escalation: [EscalationStep] = []
    /// The steps of `escalation` that fired, oldest first: `escalated.count` is how many did. `presenter` and
    /// `policy` are as the last one left them.
    public var escalated: [Escalation] = []

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

/// Whether an alert still waits for its answer.
public enum AlertState: String, Sendable {
    /// Nobody has answered, dismissed or expired it yet.
    case pending
    /// It has a result; the result never changes again.
    case resolved
}

/// How an alert is presented, as in `UIAlertController.Style`.
public enum AlertStyle: String, Sendable, CaseIterable {
    /// A modal alert; the only style that may carry text fields.
    case alert
    /// A sheet of actions; never carries text fields.
    case actionSheet
}

/// A button of a created alert, after the rules have put it in place.
public struct AlertButton: Sendable, Equatable {
    /// The button's position in the alert's `buttons`; an answer names it by this index.
    public var index: Int
    /// The button's title.
    public var title: String
    /// The button's role.
    public var style: ButtonStyle

    /// Creates a button.
    ///
    /// - Parameters:
    ///   - index: The position in the alert's `buttons`.
    ///   - title: The title.
    ///   - style: The role.
    public init(index: Int, title: String, style: ButtonStyle) {
        self.index = index
        self.title = title
        self.style = style
    }
}

/// The role of a button, as in `UIAlertAction.Style`.
public enum ButtonStyle: String, Sendable, CaseIterable {
    /// An ordinary button.
    case `default`
    /// The button that declines; an alert has at most one, at index 0.
    case cancel
    /// A button that destroys or deletes something.
    case destructive
}

/// A text field of a created alert.
public struct AlertField: Sendable, Equatable {
    /// The field's position in the alert's `fields`, and of its value in a result's `values`.
    public var index: Int
    /// The initial text.
    public var text: String
    /// The hint shown while the field is empty.
    public var placeholder: String
    /// Whether the text is a secret.
    public var secure: Bool
    /// The keyboard to show.
    public var keyboard: KeyboardType

    /// Creates a text field.
    ///
    /// - Parameters:
    ///   - index: The position in the alert's `fields`.
    ///   - text: The initial text.
    ///   - placeholder: The hint shown while the field is empty.
    ///   - secure: Whether the text is a secret.
    ///   - keyboard: The keyboard to show.
    public init(index: Int, text: String, placeholder: String, secure: Bool, keyboard: KeyboardType) {
        self.index = index
        self.text = text
        self.placeholder = placeholder
        self.secure = secure
        self.keyboard = keyboard
    }
}

/// How the delivery of an alert's result to its `callback` URL is going.
public struct WebhookDelivery: Sendable, Equatable {
    /// Where delivery stands.
    public enum State: String, Sendable {
        /// Not resolved yet, or resolved and not yet delivered (retrying).
        case pending
        /// The receiver answered 2xx.
        case delivered
        /// Every attempt failed; no more are made.
        case failed
    }

    /// The URL the result is POSTed to.
    public var url: String
    /// Where delivery stands.
    public var state: State = .pending
    /// Attempts made so far.
    public var attempts = 0
    /// Why the last attempt failed, if it did.
    public var lastError: String?
    /// When the last attempt was made.
    public var lastAttemptAt: Date?

    /// A delivery not attempted yet.
    /// - Parameter url: where to POST the result.
    public init(url: String) {
        self.url = url
    }
}
