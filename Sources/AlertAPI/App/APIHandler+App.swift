import AlertCore
import Foundation
import MicroHTTP

/// The responder's page, `/app`: sign-in, the pending list, one alert's form, its answer, and single-alert links.
/// The store calls are the three below (`read` of `visibleList`, `snapshot`, `write(.answer…)`), the same ones
/// `GET /v1/alerts` and `POST /v1/alerts/{id}/response` make.
extension APIHandler {
    /// Who looks at the page: their caller (as a bearer token would be), the cookie their CSRF tokens hang on, and
    /// the one alert a link's session is held to.
    struct PageViewer {
        let caller: Caller
        /// The session id, or in open mode the form cookie; the CSRF token is derived from it.
        let cookie: String
        let sessionID: String?
        let alert: AlertID?
        var csrf: String = ""
        /// The CSRF token of the sign-out form; nil without a session to end (open mode).
        var signOutCSRF: String? { sessionID == nil ? nil : csrf }
        /// Whether the page must set the form cookie `cookie` (open mode, a first visit).
        var setsFormCookie = false
    }

    /// Pending alerts one page shows.
    static let pagePendingLimit = 50

    // MARK: GET /app

    func appHome(_ route: RouteRequest) -> HTTPReply {
        let request = route.request
        guard let viewer = pageViewer(request) else { return .response(signInPage(request, error: nil)) }
        if let alert = viewer.alert { return .response(page(200, PageHTML.moveOn(to: "/app/alerts/\(alert.rawValue)",
                                                                                  "Open the alert"), request)) }
        let query = ListQuery(state: .pending, owner: viewer.caller.ownerFilter, limit: Self.pagePendingLimit + 1)
        return onRead({ store in store.visibleList(query) }) { list in
            let shown = Array(list.alerts.prefix(Self.pagePendingLimit))
            let html = PageHTML.list(shown, more: list.alerts.count > shown.count, signedInAs: viewer.caller.name,
                                     csrf: viewer.csrf, now: Date())
            return page(200, html, request, viewer: viewer)
        }
    }

    // MARK: POST /app/sign-in, /app/sign-out

    func appSignIn(_ route: RouteRequest) -> HTTPReply {
        let request = route.request
        let form: PageForm
        do throws(Problem) { form = try pageForm(request, csrfCookie: cookie("alertd_form", in: request)) } catch {
            return .response(refused(error, request))
        }
        guard !tokens.isOpen else { return .response(redirect("/app", request)) }
        let token = Array((form["token"] ?? "").utf8)
        guard let caller = tokens.caller(presenting: Substring(decoding: token, as: UTF8.self).utf8) else {
            return .response(signInPage(request, error: "That token is not valid.", status: 401))
        }
        guard caller.role.may(.answer) else {
            return .response(signInPage(request, error: "The \(caller.role.rawValue) role may not answer alerts: "
                                            + "sign in with a responder's token.", status: 403))
        }
        let id = pages.open(.init(token: token, linkResponder: nil, alert: nil,
                                  expires: Date().addingTimeInterval(PageAccess.sessionLifetime)))
        var response = redirect("/app", request)
        response.headers.add("Set-Cookie", sessionCookie("alertd_session", id, request,
                                                         maxAge: PageAccess.sessionLifetime))
        return .response(response)
    }

    func appSignOut(_ route: RouteRequest) -> HTTPReply {
        let request = route.request
        let viewer = pageViewer(request)
        do throws(Problem) { _ = try pageForm(request, csrfCookie: viewer?.cookie) } catch {
            return .response(refused(error, request))
        }
        if let id = viewer?.sessionID { pages.close(id) }
        var response = redirect("/app", request)
        response.headers.add("Set-Cookie", sessionCookie("alertd_session", "", request, maxAge: 0))
        return .response(response)
    }

    // MARK: GET and POST /app/link

    /// A single-alert link, checked but not used up: a page with one button that uses it. A chat tool that
    /// unfurls the link, or a browser that prefetches it, only reads this page.
    func appLink(_ route: RouteRequest) -> HTTPReply {
        let request = route.request
        let token = request.queryValue("l") ?? ""
        let link: PageAccess.Link
        do throws(PageAccess.LinkRefusal) {
            link = try pages.read(token)
        } catch {
            return .response(page(error.status, PageHTML.refusal("Link refused", error.reason + ".", signIn: true),
                                  request))
        }
        if let refusal = linkRefusal(link, request) { return .response(refusal) }
        let existing = cookie("alertd_form", in: request)
        let form = existing ?? Base64URL.random(24)
        return .response(page(200, PageHTML.openLink(token, csrf: pages.csrf(for: form)), request,
                              formCookie: existing == nil ? form : nil))
    }

    /// Runs `work`, which waits for a link's use to be recorded (a data dir's sync, a round trip to the cluster's
    /// PostgreSQL and, after a failure, a new connection), on a queue of its own: never on libmicrohttpd's threads,
    /// which serve every other request, nor on Swift's pool. The connection is suspended meanwhile.
    private func recordingLinkUse(_ work: @escaping @Sendable () -> HTTPReply) -> HTTPReply {
        .suspended { responder in
            Self.linkUses.async {
                guard responder.isPending else { return }
                responder.respond(work())
            }
        }
    }

    /// Where links' uses are recorded: one at a time, as the record takes them anyway.
    private static let linkUses = DispatchQueue(label: "alertd.link-uses")

    /// The link's page posted its button: the link is used up and turned into a session held to its alert.
    func appUseLink(_ route: RouteRequest) -> HTTPReply {
        recordingLinkUse { self.usingLink(route) }
    }

    private func usingLink(_ route: RouteRequest) -> HTTPReply {
        let request = route.request
        let form: PageForm
        do throws(Problem) { form = try pageForm(request, csrfCookie: cookie("alertd_form", in: request)) } catch {
            return .response(refused(error, request))
        }
        let link: PageAccess.Link
        do throws(PageAccess.LinkRefusal) {
            link = try pages.useLink(form["l"] ?? "")
        } catch {
            return .response(page(error.status, PageHTML.refusal("Link refused", error.reason + ".", signIn: true),
                                  request))
        }
        if let refusal = linkRefusal(link, request) { return .response(refusal) }
        let expires = min(link.expires, Date().addingTimeInterval(PageAccess.linkSessionLifetime))
        let id = pages.open(.init(token: nil, linkResponder: link.responder, alert: link.alert, expires: expires))
        var response = redirect("/app/alerts/\(link.alert.rawValue)", request)
        response.headers.add("Set-Cookie", sessionCookie("alertd_session", id, request,
                                                         maxAge: expires.timeIntervalSinceNow))
        return .response(response)
    }

    /// The page that refuses a valid link: one that answers (not opened), or whose responder may no longer answer.
    private func linkRefusal(_ link: PageAccess.Link, _ request: HTTPRequest) -> HTTPResponse? {
        if link.button != nil {
            return page(403, PageHTML.refusal("Link refused", "This link answers an alert: it is sent, not opened.",
                                              signIn: true), request)
        }
        guard let caller = tokens.caller(named: link.responder), caller.role.may(.answer) else {
            return page(403, PageHTML.refusal("Link refused", "The responder this link names may no longer answer "
                                              + "alerts.", signIn: true), request)
        }
        return nil
    }

    // MARK: POST /app/answer

    /// An answer link, as a notification's `http` action sends it (ntfy POSTs from the phone, with no cookie): the
    /// link names the alert, the responder and the button, and works once. Answers JSON, as the REST route does.
    func appLinkAnswer(_ route: RouteRequest) -> HTTPReply {
        recordingLinkUse {
            do throws(Problem) {
                return try self.answering(route)
            } catch {
                return .response(error.response)
            }
        }
    }

    private func answering(_ route: RouteRequest) throws(Problem) -> HTTPReply {
        let link: PageAccess.Link
        do throws(PageAccess.LinkRefusal) {
            link = try pages.useLink(route.request.queryValue("l") ?? "")
        } catch {
            throw .alertd(error.status, "link-refused", "Link refused", detail: error.reason)
        }
        guard let button = link.button else {
            throw .alertd(403, "link-refused", "Link refused", detail: "this link opens an alert; it does not answer")
        }
        let caller: Caller?
        if tokens.isOpen {
            caller = nil
        } else {
            guard let named = tokens.caller(named: link.responder), named.role.may(.answer) else {
                throw .alertd(403, "link-refused", "Link refused",
                              detail: "the responder this link names may no longer answer alerts")
            }
            caller = named
        }
        guard store.authority != nil, store.snapshot(of: link.alert) == nil else {
            return try answer(link.alert, button: button, by: caller)
        }
        // In a cluster, an alert created on another instance a moment ago may not be applied here yet: its answer
        // policy is read once it is (the store says 404 when it is still unknown).
        let store = self.store
        return .deferred {
            await store.catchUp()
            do throws(Problem) {
                return try self.answer(link.alert, button: button, by: caller)
            } catch {
                return .response(error.response)
            }
        }
    }

    /// An answer link's answer, in `caller`'s name (nil in open mode), held to the alert's answer policy as the page
    /// and REST are.
    private func answer(_ id: AlertID, button: Int, by caller: Caller?) throws(Problem) -> HTTPReply {
        if let caller, let alert = store.snapshot(of: id), let refusal = alert.refusal(toAnswer: caller.answerer) {
            throw .notAResponder(refusal)
        }
        let (responder, metrics) = (caller?.name, self.metrics)
        let answer = AnswerDraft(choice: .index(button))
        return onChange(.answer(id, with: answer, by: responder)) { written in
            let alert = written.alert
            // A vote on a quorum alert that leaves it pending (recorded; the alert shows it).
            guard let result = alert.result else { return HTTPResponse(status: 202) }
            metrics.answered(by: responder, after: result.resolvedAt.timeIntervalSince(alert.createdAt))
            return .json(200, result: result)
        }
    }

    // MARK: GET /app/alerts/{id}, POST /app/alerts/{id}/response

    func appAlert(_ route: RouteRequest) -> HTTPReply {
        let request = route.request
        guard let viewer = pageViewer(request) else { return .response(signInPage(request, error: nil, status: 403)) }
        guard let alert = pageAlert(route.id, for: viewer) else {
            return .response(page(404, PageHTML.refusal("No such alert", "This alert is not on this alertd, or was "
                                                        + "resolved long enough ago to be forgotten."), request))
        }
        guard alert.result == nil else {
            let mine = viewer.caller.name != nil && alert.result?.responder == viewer.caller.name
            return durable(page(200, PageHTML.resolved(alert, byMe: mine, csrf: viewer.signOutCSRF), request, viewer: viewer),
                           showing: alert)
        }
        return durable(page(200, PageHTML.alert(alert, csrf: viewer.csrf, signOut: viewer.sessionID != nil), request,
                                    viewer: viewer), showing: alert)
    }

    /// Answers through the store as `POST /v1/alerts/{id}/response` does: the same rules, the responder named by the
    /// session's token.
    func appAnswer(_ route: RouteRequest) -> HTTPReply {
        let request = route.request
        let viewer = pageViewer(request)
        let form: PageForm
        do throws(Problem) { form = try pageForm(request, csrfCookie: viewer?.cookie) } catch {
            return .response(refused(error, request))
        }
        guard let viewer else { return .response(signInPage(request, error: nil, status: 403)) }
        guard viewer.caller.role.may(.answer) else {
            return .response(page(403, PageHTML.refusal("Not allowed", "Your role may not answer alerts."), request))
        }
        let id = route.id
        guard let alert = pageAlert(id, for: viewer) else {
            return .response(page(404, PageHTML.refusal("No such alert", "This alert is not on this alertd."), request))
        }
        if let refusal = alert.refusal(toAnswer: viewer.caller.answerer) {
            return .response(page(403, PageHTML.refusal("Not allowed to answer this alert", refusal), request))
        }
        guard let button = form["button"].flatMap({ Int($0) }), alert.buttons.indices.contains(button) else {
            return .response(page(422, PageHTML.alert(alert, csrf: viewer.csrf, errors: ["Choose one of the buttons."]),
                                  request, viewer: viewer))
        }
        let values = alert.fields.isEmpty ? nil : alert.fields.map { form["v\($0.index)"] ?? "" }
        let answer = AnswerDraft(choice: .index(button), values: values)
        let responder = viewer.caller.name
        let (metrics, store) = (self.metrics, self.store)
        // As `onChange` answers, but with pages: the answer goes out once it is durable.
        let pending = PendingResponse()
        store.write(.answer(id, with: answer, by: responder)) { outcome in
            switch outcome {
            case .success(let (alert, _)):
                // A vote on a quorum alert that leaves it pending: the page again, the vote recorded.
                guard let result = alert.result else {
                    return pending.deliver(page(202, PageHTML.alert(alert, csrf: viewer.csrf,
                                                                    errors: ["Your vote is recorded; the alert "
                                                                        + "resolves once \(alert.policy.quorum) agree."]),
                                                request, viewer: viewer))
                }
                metrics.answered(by: responder, after: result.resolvedAt.timeIntervalSince(alert.createdAt))
                pending.deliver(page(200, PageHTML.resolved(alert, byMe: true, csrf: viewer.signOutCSRF), request,
                                     viewer: viewer))
            case .failure(let error):
                let current = store.snapshot(of: id) ?? alert
                let problem = Problem(error)
                let html: String = switch error.kind {
                case .alreadyResolved:
                    PageHTML.resolved(current, byMe: false, csrf: viewer.signOutCSRF)
                case .invalid:
                    PageHTML.alert(current, csrf: viewer.csrf, values: values.map {
                        zip(alert.fields, $0).map { $0.secure ? "" : $1 }
                    }, errors: error.issues.map(\.detail))
                default:
                    PageHTML.refusal(problem.title, problem.detail)
                }
                pending.deliver(page(problem.status, html, request, viewer: viewer))
            }
        }
        return pending.reply()
    }

    /// The alert, when the viewer may see it (a producer its own; a link's session its one alert).
    private func pageAlert(_ id: AlertID, for viewer: PageViewer) -> Alert? {
        if let only = viewer.alert, only != id { return nil }
        guard let alert = store.snapshot(of: id) else { return nil }
        if let owner = viewer.caller.ownerFilter, alert.owner != owner { return nil }
        return alert
    }

    // MARK: GET /app/app.css

    func appStyles(_ route: RouteRequest) -> HTTPReply {
        var response = HTTPResponse(status: 200, body: Array(EmbeddedAppCSS.text.utf8))
        response.headers.add("Content-Type", "text/css; charset=utf-8")
        response.headers.add("Cache-Control", "public, max-age=3600")
        Self.addPageHeaders(&response.headers)
        return .response(response)
    }
}
