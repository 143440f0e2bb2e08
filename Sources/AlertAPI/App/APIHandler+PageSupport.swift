import AlertCore
import Foundation
import MicroHTTP

/// What every page response carries, who is looking, and how a form is read: cookies, CSRF tokens, the same-origin
/// check of a form post.
extension APIHandler {
    /// A form body, `application/x-www-form-urlencoded`, by name (the first value of each).
    typealias PageForm = [String: String]

    /// The Content-Security-Policy of every page: nothing but alertd's own stylesheet, no script at all, forms only
    /// to alertd, never in a frame.
    static let pagePolicy = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
        + "frame-ancestors 'none'; base-uri 'none'"

    static func addPageHeaders(_ headers: inout HTTPHeaders) {
        headers.add("Content-Security-Policy", pagePolicy)
        headers.add("X-Frame-Options", "DENY")
        headers.add("X-Content-Type-Options", "nosniff")
        headers.add("Referrer-Policy", "same-origin")
        headers.add("Cross-Origin-Opener-Policy", "same-origin")
        headers.add("Cross-Origin-Resource-Policy", "same-origin")
    }

    /// An HTML page; sets the form cookie when the viewer has none (open mode, the sign-in form).
    func page(_ status: Int, _ html: String, _ request: HTTPRequest, viewer: PageViewer? = nil,
              formCookie: String? = nil) -> HTTPResponse {
        var response = HTTPResponse(status: status, body: Array(html.utf8))
        response.headers.add("Content-Type", "text/html; charset=utf-8")
        response.headers.add("Cache-Control", "no-store")
        Self.addPageHeaders(&response.headers)
        if let formCookie = formCookie ?? (viewer?.setsFormCookie == true ? viewer?.cookie : nil) {
            response.headers.add("Set-Cookie", sessionCookie("alertd_form", formCookie, request,
                                                             maxAge: PageAccess.sessionLifetime))
        }
        return response
    }

    func redirect(_ target: String, _ request: HTTPRequest) -> HTTPResponse {
        var response = page(303, PageHTML.moveOn(to: target, "Continue"), request)
        response.headers.add("Location", target)
        return response
    }

    /// A refused form post as a page, with the problem's status.
    func refused(_ problem: Problem, _ request: HTTPRequest) -> HTTPResponse {
        page(problem.status, PageHTML.refusal(problem.title, problem.detail), request)
    }

    /// The sign-in form, with a form cookie of its own for its CSRF token.
    func signInPage(_ request: HTTPRequest, error: String?, status: Int = 200) -> HTTPResponse {
        let existing = cookie("alertd_form", in: request)
        let form = existing ?? Base64URL.random(24)
        return page(status, PageHTML.signIn(csrf: pages.csrf(for: form), error: error), request,
                    formCookie: existing == nil ? form : nil)
    }

    // MARK: who is looking

    /// The viewer of a request: a live session's (its token still in force, or its link's responder still able to
    /// answer); in open mode everyone, as the rest of the API, on the form cookie; nil when signed out.
    func pageViewer(_ request: HTTPRequest) -> PageViewer? {
        if tokens.isOpen {
            // A GET without the form cookie gets one with its page; its forms then carry the matching CSRF token.
            let existing = cookie("alertd_form", in: request)
            let form = existing ?? Base64URL.random(24)
            return PageViewer(caller: .open, cookie: form, sessionID: nil, alert: nil, csrf: pages.csrf(for: form),
                              setsFormCookie: existing == nil)
        }
        guard let id = cookie("alertd_session", in: request), let session = pages.session(id) else { return nil }
        let caller: Caller?
        if let token = session.token {
            caller = tokens.caller(presenting: Substring(decoding: token, as: UTF8.self).utf8)
        } else {
            caller = session.linkResponder.flatMap { tokens.caller(named: $0) }
        }
        guard let caller, caller.role.may(.answer) else {
            pages.close(id)
            return nil
        }
        return PageViewer(caller: caller, cookie: id, sessionID: id, alert: session.alert, csrf: pages.csrf(for: id))
    }

    /// The value of cookie `name`, when the request sends it.
    func cookie(_ name: String, in request: HTTPRequest) -> String? {
        guard let header = request.headers["cookie"] else { return nil }
        for pair in header.split(separator: ";") {
            let trimmed = pair.drop { $0 == " " }
            guard trimmed.hasPrefix(name + "=") else { continue }
            let value = trimmed.dropFirst(name.count + 1)
            return value.isEmpty ? nil : String(value)
        }
        return nil
    }

    /// A `Set-Cookie` value: `HttpOnly`, `SameSite=Strict`, for `/app` only, `Secure` when the request came over
    /// TLS (through a trusted proxy that says so: alertd itself speaks plain HTTP).
    func sessionCookie(_ name: String, _ value: String, _ request: HTTPRequest, maxAge: TimeInterval) -> String {
        var cookie = "\(name)=\(value); Path=/app; Max-Age=\(max(0, Int(maxAge))); HttpOnly; SameSite=Strict"
        if Self.cameOverTLS(request) { cookie += "; Secure" }
        return cookie
    }

    /// Whether the browser reached alertd over TLS: a trusted proxy (`--trusted-proxy`) forwarded it with
    /// `X-Forwarded-Proto: https`. From any other peer the header is not believed.
    static func cameOverTLS(_ request: HTTPRequest) -> Bool {
        request.viaTrustedProxy && request.headers["x-forwarded-proto"]?.lowercased() == "https"
    }

    // MARK: forms

    /// The form a page posted, once it passes the checks of a write: sent from a page of this very alertd
    /// (`Origin` equal to the scheme and `Host` the request came with; `Sec-Fetch-Site`, when sent, `same-origin`),
    /// as a form, with the CSRF token that belongs to `csrfCookie`.
    /// - Throws: `Problem` 403 (cross-site, bad CSRF token) or 415 (not a form).
    func pageForm(_ request: HTTPRequest, csrfCookie: String?) throws(Problem) -> PageForm {
        try checkSameOrigin(request)
        let type = request.headers["content-type"]?.lowercased() ?? ""
        guard type.hasPrefix("application/x-www-form-urlencoded") else {
            throw .alertd(415, "unsupported-media-type", "Unsupported Media Type",
                          detail: "the page's forms are sent as application/x-www-form-urlencoded")
        }
        let form = Self.parseForm(request.body)
        guard pages.checkCSRF(form["csrf"], for: csrfCookie) else {
            throw .alertd(403, "csrf", "Form expired", detail: "this form is not from this session, or the session "
                + "ended: open the page again and retry")
        }
        return form
    }

    /// - Throws: `Problem` 403 unless the request came from a page of this alertd itself.
    func checkSameOrigin(_ request: HTTPRequest) throws(Problem) {
        if let site = request.headers["sec-fetch-site"], site != "same-origin" {
            throw .alertd(403, "cross-site", "Cross-site request", detail: "the page's forms are answered only "
                + "when sent from the page itself (Sec-Fetch-Site: \(site.prefix(32)))")
        }
        guard let origin = request.headers["origin"], let host = request.headers["host"] else {
            throw .alertd(403, "cross-site", "Cross-site request", detail: "a form post needs the Origin and Host "
                + "headers a browser sends")
        }
        let expected = (Self.cameOverTLS(request) ? "https://" : "http://") + host.lowercased()
        guard origin.lowercased() == expected else {
            throw .alertd(403, "cross-site", "Cross-site request", detail: "Origin '\(origin.prefix(256))' is not "
                + "this alertd's page (\(expected.prefix(256)))")
        }
    }

    /// `application/x-www-form-urlencoded`: `+` is a space, `%XX` a byte; the first value of each name wins.
    static func parseForm(_ body: [UInt8]) -> PageForm {
        var form: PageForm = [:]
        for pair in body.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            let name = decodeFormComponent(parts[0])
            if form[name] == nil { form[name] = parts.count > 1 ? decodeFormComponent(parts[1]) : "" }
        }
        return form
    }

    private static func decodeFormComponent(_ bytes: ArraySlice<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), index + 2 < bytes.endIndex + 0, index + 2 <= bytes.endIndex - 1,
                      let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2]) {
                out.append(high << 4 | low)
                index += 2
            } else {
                out.append(byte)
            }
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
