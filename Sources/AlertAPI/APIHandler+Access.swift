import AlertCore
import AlertModel
import MicroHTTP

extension APIHandler {
    /// Who sent a request that does `action`.
    ///
    /// Without configured tokens every request is `Caller.open`. With them, public reads need no token, and
    /// everything else needs `Authorization: Bearer <token>`.
    /// - Throws: `Problem` 401 without a valid token.
    func authenticate(_ request: HTTPRequest, _ action: Role.Action) throws(Problem) -> Caller {
        guard !tokens.isOpen, action != .readPublic else { return .open }
        guard let header = request.headers["authorization"] else {
            throw .unauthorized("send the header 'Authorization: Bearer <token>'", invalidToken: false)
        }
        let utf8 = Substring(header).utf8
        let scheme = utf8.prefix { $0 != UInt8(ascii: " ") }
        guard String(Substring(scheme)).lowercased() == "bearer" else {
            throw .unauthorized("only the Bearer scheme is accepted: 'Authorization: Bearer <token>'",
                                invalidToken: false)
        }
        let token = utf8[scheme.endIndex...].drop { $0 == UInt8(ascii: " ") }
        guard let caller = tokens.caller(presenting: Substring(token).utf8) else {
            throw .unauthorized("the bearer token is not valid", invalidToken: true)
        }
        return caller
    }

    /// - Throws: `Problem` 403 when the caller's role may not do `action`.
    func authorize(_ caller: Caller, _ action: Role.Action) throws(Problem) {
        guard !caller.role.may(action) else { return }
        throw .forbidden("the \(caller.role.rawValue) role may not \(action.phrase)", scope: true)
    }

    /// The alert as it is now, or nil when there is none (the store answers 404 in turn).
    /// - Throws: `Problem` 403 when a producer asks about an alert another producer created.
    func readable(_ id: AlertID, by caller: Caller) throws(Problem) -> Alert? {
        let alert = store.snapshot(of: id)
        if let owner = caller.ownerFilter, let alert, alert.owner != owner {
            throw .forbidden("alert \(id.rawValue) belongs to another producer", scope: false)
        }
        return alert
    }
}

extension Problem {
    /// 401 with the `WWW-Authenticate` challenge of RFC 6750.
    static func unauthorized(_ detail: String, invalidToken: Bool) -> Problem {
        var problem = Problem.alertd(401, "unauthorized", "Unauthorized", detail: detail)
        problem.headers.add("WWW-Authenticate", #"Bearer realm="alertd""# + (invalidToken ? #", error="invalid_token""# : ""))
        return problem
    }

    /// 403: the token is valid but may not do this.
    static func forbidden(_ detail: String, scope: Bool) -> Problem {
        var problem = Problem.alertd(403, "forbidden", "Forbidden", detail: detail)
        if scope { problem.headers.add("WWW-Authenticate", #"Bearer realm="alertd", error="insufficient_scope""#) }
        return problem
    }
}

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
