/// Why an `AlertStore` operation failed: a kind to switch on, plus the details that kind carries.
public struct AlertStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, broadly; each kind has one HTTP meaning.
    public enum Kind: Sendable, Hashable {
        /// No alert has this id (or it was resolved and dropped by retention).
        case notFound
        /// The alert is already resolved; `result` holds the result that won.
        case alreadyResolved
        /// The request breaks the rules; `issues` names each problem.
        case invalid
        /// Too many alerts are pending; answer or dismiss some first.
        case tooManyPending
        /// The store is shutting down and no longer waits.
        case shuttingDown
        /// An event cursor older than the kept history, or ahead of the store.
        case historyGone
        /// An idempotency key reused with a different request.
        case keyReused
        /// The responder already voted on this quorum alert; nothing changed.
        case alreadyVoted
        /// A rule with this name exists already; nothing changed.
        case ruleExists
        case unavailable
    }

    /// What went wrong, broadly.
    public let kind: Kind
    /// The result that won, for `alreadyResolved`.
    public let result: AlertResult?
    /// Each problem with the request, for `invalid`.
    public let issues: [FieldIssue]
    /// A sentence for people, such as "alert X is already resolved (answered)".
    public let message: String

    /// Creates an error; prefer the static constructors.
    ///
    /// - Parameters:
    ///   - kind: What went wrong.
    ///   - message: A sentence for people.
    ///   - result: The result that won, for `alreadyResolved`.
    ///   - issues: The problems, for `invalid`.
    public init(kind: Kind, message: String, result: AlertResult? = nil, issues: [FieldIssue] = []) {
        self.kind = kind
        self.message = message
        self.result = result
        self.issues = issues
    }

    /// The message.
    public var description: String { message }

    /// No alert has this id.
    ///
    /// - Parameters:
    ///   - id: The id asked for.
    public static func notFound(_ id: AlertID) -> AlertStoreError {
        AlertStoreError(kind: .notFound, message: "no alert has id '\(id)'")
    }

    /// The alert is already resolved.
    ///
    /// - Parameters:
    ///   - result: The result that won.
    ///   - id: The alert's id, for the message.
    public static func alreadyResolved(_ result: AlertResult, id: AlertID? = nil) -> AlertStoreError {
        let subject = id.map { "alert \($0)" } ?? "the alert"
        let message = "\(subject) is already resolved (\(result.resolution.rawValue))"
        return AlertStoreError(kind: .alreadyResolved, message: message, result: result)
    }

    /// The request breaks the rules.
    ///
    /// - Parameters:
    ///   - issues: Each problem, in the order the rules found them.
    public static func invalid(_ issues: [FieldIssue]) -> AlertStoreError {
        let message = switch issues.count {
        case 0: "the request is invalid"
        case 1: issues[0].detail
        default: "\(issues.count) problems: " + issues.map(\.detail).joined(separator: "; ")
        }
        return AlertStoreError(kind: .invalid, message: message, issues: issues)
    }

    /// Too many alerts are pending.
    ///
    /// - Parameters:
    ///   - limit: How many pending alerts the store allows.
    public static func tooManyPending(limit: Int) -> AlertStoreError {
        let message = "\(limit) alerts are pending, the most this server keeps; answer or dismiss some first"
        return AlertStoreError(kind: .tooManyPending, message: message)
    }

    /// The store is shutting down.
    public static var shuttingDown: AlertStoreError {
        AlertStoreError(kind: .shuttingDown, message: "the server is shutting down; try again shortly")
    }

    /// Events after `cursor` are no longer kept (or `cursor` is from another run of the store).
    public static func historyGone(cursor: UInt64, oldest: UInt64?, current: UInt64) -> AlertStoreError {
        let message = cursor > current
            ? "cursor \(cursor) is ahead of this server's change index \(current) (it restarted?); list alerts again"
            : "events after \(cursor) are no longer kept (the oldest kept is \(oldest ?? current)); list alerts again"
        return AlertStoreError(kind: .historyGone, message: message)
    }

    /// `key` created an alert from a different draft.
    /// The journal failed: the store takes no more writes until it is restarted.
    public static func unavailable(_ reason: String) -> AlertStoreError {
        AlertStoreError(kind: .unavailable,
                        message: "alertd could not write to its data dir (\(reason)); it takes no writes until restarted")
    }

    /// `responder` already voted on the quorum alert `id`.
    public static func alreadyVoted(_ id: AlertID, responder: String?) -> AlertStoreError {
        AlertStoreError(kind: .alreadyVoted, message: "'\(responder ?? "anonymous")' already voted on alert "
            + "\(id.rawValue); a responder votes once")
    }

    public static func keyReused(_ key: String) -> AlertStoreError {
        AlertStoreError(kind: .keyReused,
                        message: "Idempotency-Key '\(key)' was already used for a different request body")
    }
}

/// One problem with a request, naming the offending member by JSON pointer.
public struct FieldIssue: Sendable, Equatable, Error {
    /// A JSON pointer (RFC 6901) into the request as given, such as `/buttons/2` or `/fields/1/text`.
    public var pointer: String
    /// A sentence a user understands, such as "title is 300 characters; at most 256 are allowed".
    public var detail: String

    /// Creates an issue.
    ///
    /// - Parameters:
    ///   - pointer: A JSON pointer into the request as given.
    ///   - detail: What is wrong, in a sentence.
    public init(pointer: String, detail: String) {
        self.pointer = pointer
        self.detail = detail
    }
}
