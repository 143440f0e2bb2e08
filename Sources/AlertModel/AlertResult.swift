import Foundation

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
