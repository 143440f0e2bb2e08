import AlertCore

/// Who sent a request, as far as access control goes.
struct Caller: Sendable {
    /// The token's name; `nil` when alertd runs without tokens.
    let name: String?
    let role: Role
    /// The groups the tokens file gives the name (see `AccessTokens`).
    var groups: Set<String> = []

    /// The caller of every request when no tokens are configured: anonymous, allowed everything.
    static let open = Caller(name: nil, role: .admin)

    /// Whether the caller sees the values of secure fields in this alert (its prefilled text and the
    /// typed answer): admins and the producer that created it do; responders never do.
    func seesSecrets(of alert: Alert) -> Bool {
        role == .admin || (role == .producer && alert.owner == name)
    }

    /// Who answers, as an alert's answer policy sees it.
    var answerer: Answerer { Answerer(name: name, groups: groups, isAdmin: role == .admin) }

    /// The owner a producer is held to; `nil` for roles that see every alert.
    var ownerFilter: String? {
        role == .producer ? name : nil
    }
}
