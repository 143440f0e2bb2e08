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

/// The completion of an alert: which button, what text, how and when.
public struct AlertResult: Sendable, Equatable {
    /// The index of the chosen button in the alert's `buttons`.
    public var buttonIndex: Int
    /// The title of the chosen button.
    public var buttonTitle: String
    /// `false` when the chosen button is the cancel button, else `true`.
    public var ok: Bool
    /// One string per field, in field order; empty for an action sheet.
    public var values: [String]
    /// How the alert was resolved.
    public var resolution: Resolution
    /// When the alert was resolved.
    public var resolvedAt: Date
    /// Who resolved it: the name of the credential that answered (or dismissed) it; `nil` for an expiry and
    /// whenever the store was not told a name (a server without tokens).
    public var responder: String?
    /// The votes of a quorum alert (`AnswerPolicy.quorum` > 1) up to its resolution, oldest first; empty otherwise.
    public var votes: [Vote] = []

    /// Creates a result.
    ///
    /// - Parameters:
    ///   - buttonIndex: The index of the chosen button.
    ///   - buttonTitle: The title of the chosen button.
    ///   - ok: Whether the chosen button is not the cancel button.
    ///   - values: One string per field.
    ///   - resolution: How the alert was resolved.
    ///   - resolvedAt: When the alert was resolved.
    ///   - responder: Who resolved it, or `nil`.
    public init(
        buttonIndex: Int,
        buttonTitle: String,
        ok: Bool,
        values: [String],
        resolution: Resolution,
        resolvedAt: Date,
        responder: String? = nil
    ) {
        self.buttonIndex = buttonIndex
        self.buttonTitle = buttonTitle
        self.ok = ok
        self.values = values
        self.resolution = resolution
        self.resolvedAt = resolvedAt
        self.responder = responder
    }
}

/// How an alert came to be resolved.
public enum Resolution: String, Sendable, CaseIterable {
    /// A responder chose a button.
    case answered
    /// Its producer withdrew it; it resolved as the cancel button.
    case dismissed
    /// Its timeout passed; it resolved as the cancel button.
    case expired
}

/// A responder's answer, before the store checks it against the alert.
public struct AnswerDraft: Sendable, Equatable {
    /// The button chosen.
    public var choice: ButtonChoice
    /// One string per field, in field order; `nil` means each field's initial `text`.
    public var values: [String]?

    /// Creates an answer.
    ///
    /// - Parameters:
    ///   - choice: The button chosen.
    ///   - values: One string per field, or `nil` for each field's initial text.
    public init(choice: ButtonChoice, values: [String]? = nil) {
        self.choice = choice
        self.values = values
    }
}

/// The button a responder chose.
public enum ButtonChoice: Sendable, Equatable {
    /// The button at this index of the alert's `buttons`.
    case index(Int)
    /// The first button with exactly this title.
    case title(String)
}

/// One responder's vote on a quorum alert: who chose which button, and when.
public struct Vote: Sendable, Equatable {
    /// The name of the credential that voted (`nil` on a server without tokens).
    public var responder: String?
    /// The index of the button chosen.
    public var buttonIndex: Int
    /// When the vote was recorded.
    public var at: Date

    /// - Parameters:
    ///   - responder: Who voted.
    ///   - buttonIndex: The button chosen.
    ///   - at: When.
    public init(responder: String?, buttonIndex: Int, at: Date) {
        self.responder = responder
        self.buttonIndex = buttonIndex
        self.at = at
    }
}

/// The keyboard a device shows for a text field; raw values are `UIKeyboardType`'s.
public enum KeyboardType: Int, Sendable, CaseIterable {
    // The case names are UIKit's, so `URL` keeps its capitals.
    /// `UIKeyboardType.default` (0).
    case `default` = 0
    /// `UIKeyboardType.asciiCapable` (1), formerly `alphabet`.
    case asciiCapable
    /// `UIKeyboardType.numbersAndPunctuation` (2).
    case numbersAndPunctuation
    /// `UIKeyboardType.URL` (3).
    case URL
    /// `UIKeyboardType.numberPad` (4).
    case numberPad
    /// `UIKeyboardType.phonePad` (5).
    case phonePad
    /// `UIKeyboardType.namePhonePad` (6).
    case namePhonePad
    /// `UIKeyboardType.emailAddress` (7).
    case emailAddress
    /// `UIKeyboardType.decimalPad` (8).
    case decimalPad
    /// `UIKeyboardType.twitter` (9).
    case twitter
    /// `UIKeyboardType.webSearch` (10).
    case webSearch
    /// `UIKeyboardType.asciiCapableNumberPad` (11).
    case asciiCapableNumberPad

    /// The UIKit Swift case name: `default`, `asciiCapable`, … `URL`, … `asciiCapableNumberPad`.
    public var name: String {
        switch self {
        case .default: "default"
        case .asciiCapable: "asciiCapable"
        case .numbersAndPunctuation: "numbersAndPunctuation"
        case .URL: "URL"
        case .numberPad: "numberPad"
        case .phonePad: "phonePad"
        case .namePhonePad: "namePhonePad"
        case .emailAddress: "emailAddress"
        case .decimalPad: "decimalPad"
        case .twitter: "twitter"
        case .webSearch: "webSearch"
        case .asciiCapableNumberPad: "asciiCapableNumberPad"
        }
    }

    /// The Objective-C constant name, such as `UIKeyboardTypeEmailAddress` or `UIKeyboardTypeASCIICapable`.
    public var objectiveCName: String {
        switch self {
        case .asciiCapable: "UIKeyboardTypeASCIICapable"
        case .asciiCapableNumberPad: "UIKeyboardTypeASCIICapableNumberPad"
        case .URL: "UIKeyboardTypeURL"
        default: "UIKeyboardType" + name.prefix(1).uppercased() + name.dropFirst()
        }
    }

    /// Finds a keyboard by name, ignoring case.
    ///
    /// Accepts the Swift case name (`emailAddress`), the Objective-C name (`UIKeyboardTypeEmailAddress`),
    /// and the deprecated alias `alphabet` / `UIKeyboardTypeAlphabet` for `asciiCapable`.
    ///
    /// - Parameters:
    ///   - name: The name to look up.
    public init?(name: String) {
        let key = name.lowercased()
        guard let found = Self.byLowercasedName[key] else { return nil }
        self = found
    }

    /// Every accepted name, lowercased, with its keyboard.
    private static let byLowercasedName: [String: KeyboardType] = {
        var table: [String: KeyboardType] = [:]
        for keyboard in allCases {
            table[keyboard.name.lowercased()] = keyboard
            table[keyboard.objectiveCName.lowercased()] = keyboard
        }
        table["alphabet"] = .asciiCapable
        table["uikeyboardtypealphabet"] = .asciiCapable
        return table
    }()
}
