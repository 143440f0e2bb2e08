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
