import AlertCore
import AlertModel

/// Who sent a request, as far as access control goes.
struct Caller: Sendable {
    /// The token's name; `nil` when alertd runs without tokens.
    let name: String?
    let role: Role

    /// The caller of every request when no tokens are configured: anonymous, allowed everything.
    static let open = Caller(name: nil, role: .admin)

    /// Whether the caller sees the values of secure fields in this alert (its prefilled text and the
    /// typed answer): admins and the producer that created it do; responders never do.
    func seesSecrets(of alert: Alert) -> Bool {
        role == .admin || (role == .producer && alert.owner == name)
    }

    /// The owner a producer is held to; `nil` for roles that see every alert.
    var ownerFilter: String? {
        role == .producer ? name : nil
    }
}
