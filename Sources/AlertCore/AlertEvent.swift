import AlertModel

/// One change of the store: an alert was created or resolved. Its `index` is the change
/// index the change produced, so events are totally ordered and gap-free.
public struct AlertEvent: Sendable, Equatable {
    /// What happened.
    public enum Kind: String, Sendable, CaseIterable {
        case created, answered, dismissed, expired

        /// The event a resolution produces.
        public init(_ resolution: Resolution) {
            switch resolution {
            case .answered: self = .answered
            case .dismissed: self = .dismissed
            case .expired: self = .expired
            }
        }
    }

    /// The change index after this change.
    public var index: UInt64
    /// What happened.
    public var kind: Kind
    /// The alert just after the change.
    public var alert: Alert

    /// Creates an event.
    /// - Parameters:
    ///   - index: The change index after the change.
    ///   - kind: What happened.
    ///   - alert: The alert just after the change.
    public init(index: UInt64, kind: Kind, alert: Alert) {
        self.index = index
        self.kind = kind
        self.alert = alert
    }
}
