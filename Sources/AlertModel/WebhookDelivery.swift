import Foundation

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
