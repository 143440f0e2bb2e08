/// The size limits `AlertStore.create(_:)` enforces; lengths count characters (Swift `count`).
public struct StoreLimits: Sendable, Equatable {
    /// The longest title.
    public var title: Int
    /// The longest message.
    public var message: Int
    /// The most buttons.
    public var buttons: Int
    /// The most text fields.
    public var fields: Int
    /// The longest field text, and the longest answered value.
    public var fieldText: Int
    /// The longest button title (the shortest is one character).
    public var buttonTitle: Int
    /// The longest placeholder.
    public var placeholder: Int
    /// The longest presenter name (the shortest is one character).
    public var presenter: Int
    /// The longest timeout, in seconds.
    public var maxTimeout: Double

    /// Creates limits; the defaults are the contract's.
    ///
    /// - Parameters:
    ///   - title: The longest title.
    ///   - message: The longest message.
    ///   - buttons: The most buttons.
    ///   - fields: The most text fields.
    ///   - fieldText: The longest field text and answered value.
    ///   - buttonTitle: The longest button title.
    ///   - placeholder: The longest placeholder.
    ///   - presenter: The longest presenter name.
    ///   - maxTimeout: The longest timeout in seconds (7 days by default).
    public init(
        title: Int = 256,
        message: Int = 4096,
        buttons: Int = 16,
        fields: Int = 8,
        fieldText: Int = 1024,
        buttonTitle: Int = 256,
        placeholder: Int = 256,
        presenter: Int = 64,
        maxTimeout: Double = 604_800
    ) {
        self.title = title
        self.message = message
        self.buttons = buttons
        self.fields = fields
        self.fieldText = fieldText
        self.buttonTitle = buttonTitle
        self.placeholder = placeholder
        self.presenter = presenter
        self.maxTimeout = maxTimeout
    }
}
