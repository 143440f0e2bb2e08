/// An alert as a producer asks for it: unvalidated; `AlertStore.create(_:)` applies the rules.
public struct AlertDraft: Sendable, Equatable {
    /// The title; at least one of title and message must be non-empty.
    public var title: String
    /// The message.
    public var message: String
    /// How the alert is presented.
    public var style: AlertStyle
    /// An integer echoed back to the producer.
    public var tag: Int64
    /// The screen or queue the alert is addressed to: `[A-Za-z0-9._-]{1,64}`.
    public var presenter: String
    /// A flag echoed back for clients.
    public var animated: Bool
    /// The buttons in the order given; none means a single `OK` button.
    public var buttons: [ButtonSpec]
    /// Titles of buttons to make destructive.
    public var destructive: [String]
    /// The text fields (alert style only).
    public var fields: [FieldSpec]
    /// Seconds after which the alert expires as its cancel button, or `nil` for never.
    public var timeout: Double?
    /// A URL to POST the alert to once it resolves (checked against allowed destinations by the caller).
    public var callback: String?
    /// Who may answer the alert (`AnswerPolicy`).
    public var policy = AnswerPolicy()
    /// The tool call an agent's approval asks about (`ToolCall`), for rules to match; `nil` for other alerts.
    public var tool: ToolCall?
    /// Where the alert goes when nobody resolves it in time (`EscalationStep`), in the order the steps fire.
    public var escalation: [EscalationStep] = []

    /// Creates a draft; the defaults are the contract's.
    ///
    /// - Parameters:
    ///   - title: The title.
    ///   - message: The message.
    ///   - style: How the alert is presented.
    ///   - tag: An integer echoed back.
    ///   - presenter: The screen or queue it is addressed to.
    ///   - animated: A flag echoed back.
    ///   - buttons: The buttons in the order given.
    ///   - destructive: Titles of buttons to make destructive.
    ///   - fields: The text fields.
    ///   - timeout: Seconds until it expires, or `nil`.
    ///   - callback: A URL to POST the alert to once it resolves, or `nil`.
    public init(
        title: String = "",
        message: String = "",
        style: AlertStyle = .alert,
        tag: Int64 = 0,
        presenter: String = "root",
        animated: Bool = true,
        buttons: [ButtonSpec] = [],
        destructive: [String] = [],
        fields: [FieldSpec] = [],
        timeout: Double? = nil,
        callback: String? = nil
    ) {
        self.title = title
        self.message = message
        self.style = style
        self.tag = tag
        self.presenter = presenter
        self.animated = animated
        self.buttons = buttons
        self.destructive = destructive
        self.fields = fields
        self.timeout = timeout
        self.callback = callback
    }
}

/// A button as a producer asks for it, before the rules put it in place.
public struct ButtonSpec: Sendable, Equatable {
    /// The button's title; 1 to 256 characters.
    public var title: String
    /// The style asked for, or `nil` to let the rules choose (`default`, or `cancel` for the left-most button).
    public var style: ButtonStyle?

    /// Creates a button specification.
    ///
    /// - Parameters:
    ///   - title: The button's title.
    ///   - style: The style asked for; `nil` lets the rules choose.
    public init(title: String, style: ButtonStyle? = nil) {
        self.title = title
        self.style = style
    }
}

/// A text field as a producer asks for it.
public struct FieldSpec: Sendable, Equatable {
    /// The initial text, and the value reported when the responder leaves the field alone.
    public var text: String
    /// The grey hint shown while the field is empty.
    public var placeholder: String
    /// Whether the text is a secret (a password); secret values never appear in lists.
    public var secure: Bool
    /// The keyboard a device should show for the field.
    public var keyboard: KeyboardType

    /// Creates a text field specification.
    ///
    /// - Parameters:
    ///   - text: The initial text; at most 1024 characters.
    ///   - placeholder: The hint shown while the field is empty; at most 256 characters.
    ///   - secure: Whether the text is a secret.
    ///   - keyboard: The keyboard to show.
    public init(text: String = "", placeholder: String = "", secure: Bool = false, keyboard: KeyboardType = .default) {
        self.text = text
        self.placeholder = placeholder
        self.secure = secure
        self.keyboard = keyboard
    }
}

/// Rules 1 to 3: simple alert, cancel first, destructive.
extension AlertDraft {
    /// The buttons as given, or the single `OK` button of a simple alert (rule 1).
    var effectiveButtons: [ButtonSpec] {
        buttons.isEmpty ? [ButtonSpec(title: "OK", style: .default)] : buttons
    }

    /// Puts the cancel button first and applies `destructive`; problems go to `issues`.
    ///
    /// - Parameters:
    ///   - issues: Where problems are appended.
    /// - Returns: The buttons in their final order with final styles (meaningless when `issues` grew).
    func normalizedButtons(issues: inout [FieldIssue]) -> [AlertButton] {
        let specs = effectiveButtons
        var styles = specs.map { $0.style ?? .default }
        var order = Array(specs.indices)
        // Rule 2: the cancel button, its input index, and whether the left-most became it by default.
        var cancel: (index: Int, implicit: Bool)?
        let marked = specs.indices.filter { specs[$0].style == .cancel }
        if let first = marked.first {
            cancel = (first, false)
            for extra in marked.dropFirst() {
                issues.append(FieldIssue(
                    pointer: "/buttons/\(extra)",
                    detail: "'\(specs[extra].title)' is marked cancel, but '\(specs[first].title)' (button \(first))"
                        + " already is; an alert has at most one cancel button"
                ))
            }
            order.removeAll { $0 == first }
            order.insert(first, at: 0)
        } else if specs.count > 1 {
            cancel = (0, true)
            if styles[0] == .destructive {
                issues.append(FieldIssue(pointer: "/buttons/0", detail: Self.cancelNotDestructive(specs[0].title)))
            }
            styles[0] = .cancel
        }
        // Rule 3: destructive titles must name buttons other than the cancel button.
        for (position, title) in destructive.enumerated() {
            let matches = specs.indices.filter { specs[$0].title == title }
            if matches.isEmpty {
                let known = specs.map { "'\($0.title)'" }.joined(separator: ", ")
                issues.append(FieldIssue(
                    pointer: "/destructive/\(position)",
                    detail: "'\(title)' does not name a button; the buttons are \(known)"
                ))
            } else if let cancel, matches.contains(cancel.index) {
                let detail = cancel.implicit
                    ? Self.cancelNotDestructive(title)
                    : "'\(title)' is marked cancel and cannot also be destructive"
                issues.append(FieldIssue(pointer: "/destructive/\(position)", detail: detail))
            } else {
                for match in matches { styles[match] = .destructive }
            }
        }
        return order.enumerated().map { index, input in
            AlertButton(index: index, title: specs[input].title, style: styles[input])
        }
    }

    /// Why the left-most button, made cancel by default, cannot be destructive.
    private static func cancelNotDestructive(_ title: String) -> String {
        "'\(title)' is the cancel button (the left-most button becomes the cancel button when none is marked"
            + " cancel) and cannot be destructive; mark another button as cancel"
    }
}

/// The rules of the contract, applied in order; `AlertStore.create(_:)` calls `normalized(limits:)`.
extension AlertDraft {
    /// The buttons and fields after the rules, or every problem found.
    package struct Normalized: Sendable, Equatable {
        package var buttons: [AlertButton]
        package var fields: [AlertField]
    }

    /// Applies the rules in the contract's order, collecting every problem before it gives up.
    ///
    /// Pointers in issues refer to positions in the draft as given (before the cancel button moves).
    ///
    /// - Parameters:
    ///   - limits: The size limits to enforce.
    /// - Throws: `AlertStoreError.invalid` listing every problem.
    func normalized(limits: StoreLimits) throws(AlertStoreError) -> Normalized {
        var issues: [FieldIssue] = []
        let buttons = normalizedButtons(issues: &issues)
        if style == .actionSheet && !fields.isEmpty {
            issues.append(FieldIssue(
                pointer: "/fields",
                detail: "an action sheet cannot have text fields; use style alert or remove the fields"
            ))
        }
        checkLimits(limits, issues: &issues)
        checkPolicy(issues: &issues)
        checkEscalation(issues: &issues)
        tool?.check(issues: &issues)
        guard issues.isEmpty else { throw .invalid(issues) }
        let fields = fields.enumerated().map { index, spec in
            AlertField(
                index: index,
                text: spec.text,
                placeholder: spec.placeholder,
                secure: spec.secure,
                keyboard: spec.keyboard
            )
        }
        return Normalized(buttons: buttons, fields: fields)
    }
}

/// A draft that passed the rules, with its normalized buttons and fields and a fresh id: everything about a new alert
/// that does not need the store, made before taking it so that a create holds the store only to store the alert.
public struct PreparedAlert: Sendable {
    /// The draft as the producer gave it (idempotency compares it with a retry's).
    public let draft: AlertDraft
    package let normalized: AlertDraft.Normalized
    /// The id the alert gets unless it is taken (then the store draws another).
    package let id: AlertID

    /// Applies the rules to `draft` and draws an id.
    ///
    /// - Parameters:
    ///   - draft: The alert as the producer asked for it.
    ///   - limits: The size limits to enforce (the store's `configuration.limits`).
    /// - Throws: `AlertStoreError` `invalid` listing every broken rule.
    public init(_ draft: AlertDraft, limits: StoreLimits) throws(AlertStoreError) {
        self.draft = draft
        normalized = try draft.normalized(limits: limits)
        id = .random()
    }
}

/// Rule 5: sizes, the presenter's spelling and the timeout.
extension AlertDraft {
    /// Appends an issue for every limit the draft breaks.
    ///
    /// - Parameters:
    ///   - limits: The limits to enforce.
    ///   - issues: Where problems are appended.
    func checkLimits(_ limits: StoreLimits, issues: inout [FieldIssue]) {
        // Pointer and name are built only for a reported issue; most drafts break no limit.
        func tooLong(_ pointer: @autoclosure () -> String, _ name: @autoclosure () -> String, _ text: String,
                     _ limit: Int) {
            // A character is at least one UTF-8 byte: short texts need no grapheme count.
            guard text.utf8.count > limit else { return }
            let count = text.count
            if count > limit {
                issues.append(FieldIssue(
                    pointer: pointer(),
                    detail: "\(name()) is \(count) characters; at most \(limit) are allowed"
                ))
            }
        }
        tooLong("/title", "title", title, limits.title)
        tooLong("/message", "message", message, limits.message)
        if title.isEmpty && message.isEmpty {
            issues.append(FieldIssue(pointer: "/title", detail: "title and message are both empty; give at least one"))
        }
        if buttons.count > limits.buttons {
            issues.append(FieldIssue(
                pointer: "/buttons",
                detail: "\(buttons.count) buttons given; at most \(limits.buttons) are allowed"
            ))
        }
        for (index, button) in buttons.enumerated() {
            if button.title.isEmpty {
                issues.append(FieldIssue(
                    pointer: "/buttons/\(index)/title",
                    detail: "button \(index) has an empty title; give 1 to \(limits.buttonTitle) characters"
                ))
            }
            tooLong("/buttons/\(index)/title", "button \(index)'s title", button.title, limits.buttonTitle)
        }
        if fields.count > limits.fields {
            issues.append(FieldIssue(
                pointer: "/fields",
                detail: "\(fields.count) fields given; at most \(limits.fields) are allowed"
            ))
        }
        for (index, field) in fields.enumerated() {
            tooLong("/fields/\(index)/text", "field \(index)'s text", field.text, limits.fieldText)
            let placeholder = field.placeholder
            tooLong("/fields/\(index)/placeholder", "field \(index)'s placeholder", placeholder, limits.placeholder)
        }
        if !Self.isValidPresenter(presenter, limit: limits.presenter) {
            issues.append(FieldIssue(
                pointer: "/presenter",
                detail: "presenter must be 1 to \(limits.presenter) characters of A-Z, a-z, 0-9, '.', '_' and '-'"
            ))
        }
        if let timeout {
            checkTimeout(timeout, limit: limits.maxTimeout, issues: &issues)
        }
    }

    /// Whether a presenter name matches `[A-Za-z0-9._-]{1,limit}`.
    ///
    /// - Parameters:
    ///   - name: The presenter name.
    ///   - limit: The longest name allowed.
    public static func isValidPresenter(_ name: String, limit: Int = 64) -> Bool {
        let bytes = name.utf8
        guard !bytes.isEmpty, bytes.count <= limit else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                true
            default:
                false
            }
        }
    }

    /// Appends an issue unless the timeout is finite, above zero and at most `limit` seconds.
    private func checkTimeout(_ timeout: Double, limit: Double, issues: inout [FieldIssue]) {
        let detail: String? = if !timeout.isFinite {
            "timeout must be a finite number of seconds"
        } else if timeout <= 0 {
            "timeout is \(Self.seconds(timeout)) seconds; it must be greater than 0"
        } else if timeout > limit {
            "timeout is \(Self.seconds(timeout)) seconds; at most \(Self.seconds(limit)) are allowed"
        } else {
            nil
        }
        if let detail {
            issues.append(FieldIssue(pointer: "/timeout", detail: detail))
        }
    }

    /// A number of seconds without a needless `.0`.
    private static func seconds(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 {
            return String(Int64(value))
        }
        return String(value)
    }
}

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
