import JSON

/// What the tools need from alertd, for one caller. `alertctl mcp` implements it over `AlertClient` (HTTP), alertd's
/// `/mcp` over its store with the caller's token; tests implement it in memory.
///
/// Every call may be cancelled (the task is): it then throws `.cancelled` promptly, or returns what it has.
/// Errors are `AlertBackendError`, whose `reason` a person can read (it reaches the agent as the tool's error text).
public protocol AlertBackend: Sendable {
    /// Creates an alert, or with an `idempotencyKey` seen before, returns the alert that key created (as it is now:
    /// it may be resolved). A draft alertd refuses throws `.rejected` with alertd's reason.
    func create(_ draft: AlertDraftInput, idempotencyKey: String?) async throws(AlertBackendError) -> AlertSnapshot

    /// The alert as it is now. Unknown (or not the caller's): `.notFound`.
    func alert(_ id: String) async throws(AlertBackendError) -> AlertSnapshot

    /// Waits until the alert resolves or `deadline` passes (`nil`: no bound), then returns the Result, or `nil` when
    /// it is still pending. An implementation over the network rides out restarts of alertd until the deadline:
    /// a brief outage is not an error, and the Result it returns is the one alertd recorded.
    func result(_ id: String, until deadline: ContinuousClock.Instant?) async throws(AlertBackendError)
        -> AlertOutcome?

    /// Withdraws the alert as its producer: it resolves as its cancel button with resolution `dismissed`.
    /// Already resolved: `.alreadyResolved` carrying the Result that won.
    func dismiss(_ id: String) async throws(AlertBackendError) -> AlertOutcome

    /// The caller's own pending alerts, oldest first, at most `limit` (with no tokens, alertd's every alert).
    func pending(limit: Int) async throws(AlertBackendError) -> [AlertSnapshot]
}

/// Why a backend call failed.
public struct AlertBackendError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// alertd refused the request (a 4xx other than the ones below): `reason` says why.
        case rejected
        /// No such alert, or not the caller's.
        case notFound
        /// The caller may not do this (a token whose role may not).
        case forbidden
        /// The alert had resolved already; this is the Result that won.
        case alreadyResolved(AlertOutcome)
        /// alertd could not be reached (or kept failing) until the call gave up.
        case unreachable
        /// The caller's task was cancelled.
        case cancelled
        /// Anything else (a 5xx, a response that could not be read).
        case failed
    }

    public var kind: Kind
    /// Readable by a person: "title is 300 characters; at most 256 are allowed".
    public var reason: String

    public init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    public static let cancelled = AlertBackendError(.cancelled, "cancelled")

    public var description: String { reason }
}

/// An alert to create: what `POST /v1/alerts` takes, in the shapes its normalization accepts.
public struct AlertDraftInput: Sendable, Equatable {
    public struct Button: Sendable, Equatable {
        public var title: String
        /// `default`, `cancel` or `destructive`; `nil` lets alertd's rules decide.
        public var style: String?

        public init(title: String, style: String? = nil) {
            self.title = title
            self.style = style
        }
    }

    public struct Field: Sendable, Equatable {
        public var text: String
        public var placeholder: String
        public var secure: Bool
        /// A UIKeyboardType name (`default`, `asciiCapable`, …).
        public var keyboard: String

        public init(text: String = "", placeholder: String = "", secure: Bool = false, keyboard: String = "default") {
            self.text = text
            self.placeholder = placeholder
            self.secure = secure
            self.keyboard = keyboard
        }
    }

    public var title: String?
    public var message: String?
    /// `alert` or `actionSheet`.
    public var style: String
    public var tag: Int64
    /// `nil`: alertd's default (`root`).
    public var presenter: String?
    public var buttons: [Button]
    /// Titles of buttons to mark destructive.
    public var destructive: [String]
    public var fields: [Field]
    /// Seconds until it expires; `nil`: never.
    public var timeout: Double?
    /// The tool call an approval asks about, for alertd's rules to match (`tool` and `toolInput`); `nil` otherwise.
    public var tool: String?
    public var toolInput: [String: String] = [:]

    public init(
        title: String? = nil, message: String? = nil, style: String = "alert", tag: Int64 = 0, presenter: String? = nil,
        buttons: [Button] = [], destructive: [String] = [], fields: [Field] = [], timeout: Double? = nil
    ) {
        self.title = title
        self.message = message
        self.style = style
        self.tag = tag
        self.presenter = presenter
        self.buttons = buttons
        self.destructive = destructive
        self.fields = fields
        self.timeout = timeout
    }

    /// The body of `POST /v1/alerts` for this draft (members alertd would default are left out).
    public var requestBody: JSONValue {
        var members: [(String, JSONValue)] = []
        if let title { members.append(("title", .string(title))) }
        if let message { members.append(("message", .string(message))) }
        if style != "alert" { members.append(("style", .string(style))) }
        if tag != 0 { members.append(("tag", .integer(tag))) }
        if let presenter { members.append(("presenter", .string(presenter))) }
        if !buttons.isEmpty {
            members.append(("buttons", .array(buttons.map { button in
                var object: [(String, JSONValue)] = [("title", .string(button.title))]
                if let style = button.style { object.append(("style", .string(style))) }
                return .object(JSONObject(object))
            })))
        }
        if !destructive.isEmpty { members.append(("destructive", .array(destructive.map { .string($0) }))) }
        if !fields.isEmpty {
            members.append(("fields", .array(fields.map { field in
                .object([
                    "text": .string(field.text), "placeholder": .string(field.placeholder),
                    "secure": .bool(field.secure), "keyboard": .string(field.keyboard),
                ])
            })))
        }
        if let timeout { members.append(("timeout", .number(timeout))) }
        if let tool {
            members.append(("tool", .string(tool)))
            members.append(("toolInput", .object(JSONObject(toolInput.sorted { $0.key < $1.key }
                .map { ($0.key, JSONValue.string($0.value)) }))))
        }
        return .object(JSONObject(members))
    }
}

/// An alert as alertd shows it to its producer.
public struct AlertSnapshot: Sendable, Equatable {
    public struct Button: Sendable, Equatable {
        public var index: Int
        public var title: String
        public var style: String

        public init(index: Int, title: String, style: String) {
            self.index = index
            self.title = title
            self.style = style
        }
    }

    public struct Field: Sendable, Equatable {
        public var index: Int
        public var placeholder: String
        public var secure: Bool
        public var keyboard: String

        public init(index: Int, placeholder: String, secure: Bool, keyboard: String) {
            self.index = index
            self.placeholder = placeholder
            self.secure = secure
            self.keyboard = keyboard
        }
    }

    public var id: String
    public var title: String
    public var message: String
    public var style: String
    public var presenter: String
    public var tag: Int64
    public var buttons: [Button]
    public var fields: [Field]
    /// `nil` while pending.
    public var result: AlertOutcome?
    /// RFC 3339.
    public var createdAt: String
    /// RFC 3339; `nil` without a timeout.
    public var expiresAt: String?

    public init(
        id: String, title: String, message: String, style: String, presenter: String, tag: Int64, buttons: [Button],
        fields: [Field], result: AlertOutcome?, createdAt: String, expiresAt: String?
    ) {
        self.id = id
        self.title = title
        self.message = message
        self.style = style
        self.presenter = presenter
        self.tag = tag
        self.buttons = buttons
        self.fields = fields
        self.result = result
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    public var isPending: Bool { result == nil }
}

/// An alert's Result.
public struct AlertOutcome: Sendable, Equatable {
    public var buttonIndex: Int
    public var buttonTitle: String
    public var ok: Bool
    /// One per field, in field order (`nil` where alertd withheld a value).
    public var values: [String?]
    /// `answered`, `dismissed` or `expired`.
    public var resolution: String
    /// RFC 3339.
    public var resolvedAt: String
    /// The name of the token that answered or dismissed it; `nil` without tokens and on expiry.
    public var responder: String?

    public init(
        buttonIndex: Int, buttonTitle: String, ok: Bool, values: [String?], resolution: String, resolvedAt: String,
        responder: String?
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
