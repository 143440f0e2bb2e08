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
