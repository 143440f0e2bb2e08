@testable import AlertAPI
import AlertCore
import AlertServer
import Foundation
import HTTPTestSupport
import Testing

/// The responder's page, `/app`, in process: what it renders, who it lets in, and which form posts it answers.
/// (The browser half, in Chromium, is scripts/app_test.py.)
@Suite("The responder's page", .spawnsProcesses)
struct ResponderPageTests {
    static let alice = "alice-responder-token-01"
    static let bob = "bob-responder-token-0002"
    static let producer = "ci-producer-token-00001"
    static let tokens = "alice:responder:\(alice),bob:responder:\(bob),ci:producer:\(producer)"
    static let origin = ("Origin", "http://127.0.0.1")
    static let form = ("Content-Type", "application/x-www-form-urlencoded")

    static func withPage(_ body: (LiveServer) async throws -> Void) async throws {
        try await LiveServer.with(transport: .inProcess, { $0.tokens = try! AccessTokens(parsing: tokens, source: "test") },
                                  body)
    }

    /// A browser's cookie jar, reduced to alertd's two cookies.
    struct Browser {
        let server: LiveServer
        var cookies: [String: String] = [:]

        mutating func send(_ method: String, _ target: String, form: [(String, String)]? = nil,
                           headers: [(String, String)] = [ResponderPageTests.origin]) async throws -> WireResponse {
            var fields = headers
            if !cookies.isEmpty { fields.append(("Cookie", cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))) }
            var body: String?
            if let form {
                fields.append(ResponderPageTests.form)
                body = form.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }
                    .joined(separator: "&")
            }
            let response = try await server.send(method, target, body: body, headers: fields)
            if let set = response.headers["set-cookie"], let pair = set.split(separator: ";").first {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                cookies[String(parts[0])] = parts.count > 1 && !parts[1].isEmpty ? String(parts[1]) : nil
            }
            return response
        }

        static func csrf(in page: WireResponse) -> String {
            guard let range = page.text.range(of: #"name="csrf" value=""#) else { return "" }
            return String(page.text[range.upperBound...].prefix { $0 != "\"" })
        }

        mutating func signIn(_ token: String) async throws -> WireResponse {
            let page = try await send("GET", "/app")
            return try await send("POST", "/app/sign-in", form: [("csrf", Self.csrf(in: page)), ("token", token)])
        }
    }

    func create(_ server: LiveServer, _ body: String) async throws -> String {
        let response = try await server.send("POST", "/v1/alerts", body: body,
                                             headers: [("Authorization", "Bearer \(Self.producer)")])
        #expect(response.status == 201, "\(response.text)")
        return response.json["id"]?.stringValue ?? ""
    }

    @Test("every page is HTML with a strict CSP, framing refused, nothing cached; the stylesheet is alertd's own")
    func headers() async throws {
        try await Self.withPage { server in
            for target in ["/app", "/app/alerts/nope", "/app/app.css"] {
                let response = try await server.get(target)
                let csp = response.headers["content-security-policy"] ?? ""
                #expect(csp.contains("default-src 'none'") && csp.contains("frame-ancestors 'none'")
                        && !csp.contains("script-src"), "\(target): \(csp)")
                #expect(response.headers["x-frame-options"] == "DENY", "\(target)")
                #expect(response.headers["x-content-type-options"] == "nosniff", "\(target)")
            }
            let css = try await server.get("/app/app.css")
            #expect(css.status == 200 && css.contentType.hasPrefix("text/css") && css.body.count < 8192)
            let page = try await server.get("/app")
            #expect(page.contentType == "text/html; charset=utf-8" && page.headers["cache-control"] == "no-store")
            #expect(!page.text.contains("<script") && !page.text.contains("http://") && !page.text.contains("https://"),
                    "no script, no third-party request")
        }
    }

    @Test("signing in sets an HttpOnly, SameSite=Strict session cookie of bounded lifetime; a bad token is refused")
    func signIn() async throws {
        try await Self.withPage { server in
            var browser = Browser(server: server)
            let bad = try await browser.signIn("not-a-token-at-all-000")
            #expect(bad.status == 401 && bad.text.contains("not valid"))
            let producer = try await browser.signIn(Self.producer)
            #expect(producer.status == 403 && producer.text.contains("may not answer"))
            var fresh = Browser(server: server)
            let page = try await fresh.send("GET", "/app")
            let signedIn = try await fresh.send("POST", "/app/sign-in", form: [("csrf", Browser.csrf(in: page)),
                                                                               ("token", Self.alice)])
            #expect(signedIn.status == 303 && signedIn.headers["location"] == "/app")
            let cookie = try #require(signedIn.headers["set-cookie"])
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/app"))
            #expect(cookie.contains("Max-Age=28800") && !cookie.contains("Secure"), "plain HTTP: \(cookie)")
            #expect(!cookie.contains(Self.alice))
            let list = try await fresh.send("GET", "/app")
            #expect(list.text.contains("Signed in as <strong>alice</strong>"), "\(list.text)")
        }
    }

    @Test("producer strings are escaped in the list and the alert, and a secure value is never rendered")
    func escaping() async throws {
        try await Self.withPage { server in
            let hostile = #"<script>alert(1)</script>\"'><img src=x onerror=alert(2)>"#
            let id = try await create(server, """
                {"title":"\(hostile)","message":"\(hostile)","presenter":"ops",
                 "buttons":["\(hostile)","OK"],
                 "fields":[{"placeholder":"\(hostile)","text":"\(hostile)"},
                           {"placeholder":"Password","secure":true,"text":"hunter2-preset"}]}
                """)
            var browser = Browser(server: server)
            _ = try await browser.signIn(Self.alice)
            for page in [try await browser.send("GET", "/app"), try await browser.send("GET", "/app/alerts/\(id)")] {
                #expect(page.status == 200)
                #expect(!page.text.contains("<script>alert") && !page.text.contains("<img"), "\(page.text)")
                #expect(page.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
                #expect(!page.text.contains(#"\"'>"#) && !page.text.contains("\"'>"))
                #expect(!page.text.contains("hunter2-preset"))
            }
        }
    }

    @Test("a field's keyboard picks its input type; buttons come in UIKit's order with cancel separate")
    func inputs() {
        func field(_ keyboard: KeyboardType, secure: Bool = false) -> AlertField {
            AlertField(index: 0, text: "", placeholder: "", secure: secure, keyboard: keyboard)
        }
        #expect(PageHTML.inputAttributes(field(.numberPad)).contains(#"inputmode="numeric""#))
        #expect(PageHTML.inputAttributes(field(.emailAddress)).hasPrefix(#"type="email""#))
        #expect(PageHTML.inputAttributes(field(.URL)).hasPrefix(#"type="url""#))
        #expect(PageHTML.inputAttributes(field(.phonePad)).hasPrefix(#"type="tel""#))
        #expect(PageHTML.inputAttributes(field(.numberPad, secure: true)).hasPrefix(#"type="password" inputmode="numeric""#))
        let sheet = Alert(id: AlertID(rawValue: "a"), sequence: 1, title: "t", message: "", style: .actionSheet, tag: 0,
                          presenter: "p", animated: false,
                          buttons: [AlertButton(index: 0, title: "Cancel", style: .cancel),
                                    AlertButton(index: 1, title: "Delete", style: .destructive),
                                    AlertButton(index: 2, title: "Keep", style: .default)],
                          fields: [], createdAt: Date())
        #expect(PageHTML.orderedButtons(sheet).map(\.title) == ["Delete", "Keep", "Cancel"])
        #expect(PageHTML.defaultButton(sheet)?.title == "Keep", "never the destructive one by default")
        let html = PageHTML.alert(sheet, csrf: "c")
        #expect(html.contains(#"class="destructive""#) && html.contains("(destructive)"))
        #expect(html.contains(#"class="cancel" formnovalidate"#))
    }

    @Test("an answer from the page goes through the store in the token's name; a later one says who was quicker")
    func answer() async throws {
        try await Self.withPage { server in
            let id = try await create(server, loginAlert)
            var alice = Browser(server: server)
            _ = try await alice.signIn(Self.alice)
            let page = try await alice.send("GET", "/app/alerts/\(id)")
            let answered = try await alice.send("POST", "/app/alerts/\(id)/response", form: [
                ("csrf", Browser.csrf(in: page)), ("button", "1"), ("v0", "appleseed"), ("v1", "s3cret-typed")])
            #expect(answered.status == 200 && answered.text.contains("You answered"), "\(answered.text)")
            #expect(!answered.text.contains("s3cret-typed"))
            let result = try await server.send("GET", "/v1/alerts/\(id)/response",
                                               headers: [("Authorization", "Bearer \(Self.producer)")])
            #expect(result.json["responder"]?.stringValue == "alice")
            #expect(result.json["values"]?[1]?.stringValue == "s3cret-typed")

            var bob = Browser(server: server)
            _ = try await bob.signIn(Self.bob)
            let late = try await bob.send("GET", "/app/alerts/\(id)")
            #expect(late.text.contains("answered elsewhere, by alice"), "\(late.text)")
            let lost = try await bob.send("POST", "/app/alerts/\(id)/response",
                                          form: [("csrf", Browser.csrf(in: late)), ("button", "0")])
            #expect(lost.status == 409 && lost.text.contains("answered elsewhere, by alice"), "\(lost.text)")
        }
    }

    @Test("the page holds an alert's answer policy: a responder it does not name is refused and nothing changes")
    func answerPolicy() async throws {
        try await Self.withPage { server in
            let id = try await create(server, #"{"title":"Deploy?","buttons":[{"title":"No","style":"cancel"},"#
                                      + #"{"title":"Yes"}],"responders":["bob"]}"#)
            var alice = Browser(server: server)
            _ = try await alice.signIn(Self.alice)
            let page = try await alice.send("GET", "/app/alerts/\(id)")
            let refused = try await alice.send("POST", "/app/alerts/\(id)/response",
                                               form: [("csrf", Browser.csrf(in: page)), ("button", "1")])
            #expect(refused.status == 403 && refused.text.contains("may not answer"), "\(refused.text)")
            let alert = try await server.send("GET", "/v1/alerts/\(id)",
                                              headers: [("Authorization", "Bearer \(Self.producer)")])
            #expect(alert.json["state"]?.stringValue == "pending", "\(alert.text)")

            var bob = Browser(server: server)
            _ = try await bob.signIn(Self.bob)
            let bobsPage = try await bob.send("GET", "/app/alerts/\(id)")
            let answered = try await bob.send("POST", "/app/alerts/\(id)/response",
                                              form: [("csrf", Browser.csrf(in: bobsPage)), ("button", "1")])
            #expect(answered.status == 200, "\(answered.text)")
        }
    }

    @Test("a form post from another site, without Origin, or with a wrong CSRF token is refused and changes nothing")
    func crossSite() async throws {
        try await Self.withPage { server in
            let id = try await create(server, #"{"title":"Deploy?","buttons":["No","Yes"]}"#)
            var browser = Browser(server: server)
            _ = try await browser.signIn(Self.alice)
            let page = try await browser.send("GET", "/app/alerts/\(id)")
            let csrf = Browser.csrf(in: page)
            let attempts: [([(String, String)], [(String, String)])] = [
                ([("csrf", csrf), ("button", "1")], [("Origin", "http://evil.example")]),
                ([("csrf", csrf), ("button", "1")], []),
                ([("csrf", csrf), ("button", "1")], [Self.origin, ("Sec-Fetch-Site", "cross-site")]),
                ([("csrf", "forged"), ("button", "1")], [Self.origin]),
                ([("button", "1")], [Self.origin]),
            ]
            for (form, headers) in attempts {
                let refused = try await browser.send("POST", "/app/alerts/\(id)/response", form: form, headers: headers)
                #expect(refused.status == 403, "\(headers): \(refused.text)")
            }
            var other = Browser(server: server)
            _ = try await other.signIn(Self.bob)
            let foreign = try await other.send("POST", "/app/alerts/\(id)/response",
                                               form: [("csrf", csrf), ("button", "1")])
            #expect(foreign.status == 403, "another session's CSRF token")
            let state = try await server.send("GET", "/v1/alerts/\(id)", headers: [("Authorization", "Bearer \(Self.alice)")])
            #expect(state.json["state"]?.stringValue == "pending")
        }
    }

    @Test("a single-alert link opens its alert once, not after expiry, not another alert, not once its token is gone")
    func links() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("alertd-page-\(UUID()).txt")
        defer { try? FileManager.default.removeItem(at: file) }
        try "alice:responder:\(Self.alice)\nbob:responder:\(Self.bob)\nci:producer:\(Self.producer)\n"
            .write(to: file, atomically: true, encoding: .utf8)
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        try await LiveServer.with(transport: .inProcess, {
            $0.tokensFile = file.path
            $0.tokens = try! $0.loadTokens()
            $0.notifyTargets = [NotifyTarget.webhook(receiver.url())!]
            $0.notifyResponder = "bob"
        }) { server in
            let first = try await create(server, #"{"title":"One","buttons":["No","Yes"]}"#)
            let second = try await create(server, #"{"title":"Two","buttons":["No","Yes"]}"#)
            #expect(await TestTime.until(every: .milliseconds(20)) { receiver.requests.count >= 2 })
            let byAlert = Dictionary(uniqueKeysWithValues: receiver.requests.map {
                ($0.json["alert"]?["id"]?.stringValue ?? "", $0.json["link"]?.stringValue ?? "")
            })
            let link = try #require(byAlert[first]?.split(separator: "/app/").last.map { "/app/" + $0 })
            var phone = Browser(server: server)
            let linkPage = try await phone.send("GET", link, headers: [])
            #expect(linkPage.status == 200 && linkPage.text.contains("Open the alert"), "\(linkPage.text)")
            var unfurler = Browser(server: server)
            let preview = try await unfurler.send("GET", link, headers: [])
            #expect(preview.status == 200, "reading the link's page (a chat preview) does not use the link up")
            let opened = try await phone.send("POST", "/app/link", form: [
                ("csrf", Browser.csrf(in: linkPage)), ("l", String(link.split(separator: "l=").last ?? ""))])
            #expect(opened.status == 303 && opened.headers["location"] == "/app/alerts/\(first)", "\(opened.text)")
            let page = try await phone.send("GET", "/app/alerts/\(first)", headers: [])
            #expect(page.status == 200 && page.text.contains("One"), "\(page.text)")
            let elsewhere = try await phone.send("GET", "/app/alerts/\(second)", headers: [])
            #expect(elsewhere.status == 404, "a link's session sees its one alert")
            var again = Browser(server: server)
            let secondVisit = try await again.send("GET", link, headers: [])
            let reused = try await again.send("POST", "/app/link", form: [
                ("csrf", Browser.csrf(in: secondVisit)), ("l", String(link.split(separator: "l=").last ?? ""))])
            #expect(reused.status == 403 && reused.text.contains("used already"), "\(reused.text)")

            // bob's token goes: his link's session ends, and so does an unused link for him.
            let secondLink = try #require(byAlert[second]?.split(separator: "/app/").last.map { "/app/" + $0 })
            try "alice:responder:\(Self.alice)\nci:producer:\(Self.producer)\n".write(to: file, atomically: true,
                                                                                      encoding: .utf8)
            #expect(server.app.reloadTokens())
            let ended = try await phone.send("GET", "/app/alerts/\(first)", headers: [])
            #expect(ended.status == 403 && ended.text.contains("Sign in"), "\(ended.text)")
            var late = Browser(server: server)
            let gone = try await late.send("GET", secondLink, headers: [])
            #expect(gone.status == 403 && gone.text.contains("no longer answer"), "\(gone.text)")
        }
    }

    @Test("links: a tampered one, an expired one and a reused one are refused; the key signs, not the payload")
    func linkRules() throws {
        let pages = PageAccess(key: .ephemeral())
        let now = Date()
        let token = pages.signLink(alert: AlertID(rawValue: "A1"), responder: "alice", now: now)
        #expect(throws: PageAccess.LinkRefusal.expired) {
            try pages.read(token, now: now.addingTimeInterval(PageAccess.linkLifetime + 1))
        }
        var tampered = Array(token.utf8)
        tampered[3] = tampered[3] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(throws: PageAccess.LinkRefusal.self) { try pages.read(String(decoding: tampered, as: UTF8.self)) }
        #expect(throws: PageAccess.LinkRefusal.badSignature) { try PageAccess(key: .ephemeral()).read(token) }
        let link = try pages.useLink(token, now: now)
        #expect(link.alert.rawValue == "A1" && link.responder == "alice" && link.button == nil)
        #expect(throws: PageAccess.LinkRefusal.used) { try pages.useLink(token, now: now) }
    }

    @Test("a session from a token SIGHUP removed stops at once")
    func removedTokenEndsSessions() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("alertd-page-\(UUID()).txt")
        defer { try? FileManager.default.removeItem(at: file) }
        try "alice:responder:\(Self.alice)\nbob:responder:\(Self.bob)\n".write(to: file, atomically: true, encoding: .utf8)
        try await LiveServer.with(transport: .inProcess, {
            $0.tokensFile = file.path
            $0.tokens = try! $0.loadTokens()
        }) { server in
            var alice = Browser(server: server)
            _ = try await alice.signIn(Self.alice)
            #expect(try await alice.send("GET", "/app").text.contains("Signed in as"))
            try "bob:responder:\(Self.bob)\n".write(to: file, atomically: true, encoding: .utf8)
            #expect(server.app.reloadTokens())
            let after = try await alice.send("GET", "/app")
            #expect(after.text.contains("<h1>Sign in</h1>"), "\(after.text)")
        }
    }

    @Test("SHA-256 and HMAC-SHA256 match FIPS 180-4 and RFC 4231")
    func digests() {
        func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
        #expect(hex(SHA256.hash(Array("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hex(SHA256.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(hex(SHA256.hmac(key: Array("Jefe".utf8), Array("what do ya want for nothing?".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(hex(SHA256.hmac(key: [UInt8](repeating: 0xaa, count: 131),
                                Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
        #expect(Base64URL.decode(Substring(Base64URL.encode([1, 2, 3, 4, 250]))) == [1, 2, 3, 4, 250])
    }
}

@Suite("The responder's page without tokens, and --notify", .spawnsProcesses)
struct ResponderPageOpenTests {
    @Test("without tokens the page needs no sign-in, keeps the local-only rules, and still wants its CSRF token")
    func openMode() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            let id = try await server.create(#"{"title":"Open?","buttons":["No","Yes"]}"#)
            var browser = ResponderPageTests.Browser(server: server)
            let list = try await browser.send("GET", "/app")
            #expect(list.status == 200 && list.text.contains("Open?"), "\(list.text)")
            let page = try await browser.send("GET", "/app/alerts/\(id)")
            let csrf = ResponderPageTests.Browser.csrf(in: page)
            let foreign = try await browser.send("POST", "/app/alerts/\(id)/response",
                                                 form: [("csrf", csrf), ("button", "1")],
                                                 headers: [("Origin", "http://evil.example")])
            #expect(foreign.status == 403)
            let answered = try await browser.send("POST", "/app/alerts/\(id)/response",
                                                  form: [("csrf", csrf), ("button", "1")])
            #expect(answered.status == 200 && answered.text.contains("You answered"), "\(answered.text)")
        }
    }

    @Test("the pending page shows the oldest 50, as GET /v1/alerts?limit=50 costs, and says when more wait")
    func pageLimit() async throws {
        try await LiveServer.with(transport: .inProcess) { server in
            for n in 1...51 { _ = try await server.create(#"{"title":"Pending \#(n) end","buttons":["OK"]}"#) }
            var browser = ResponderPageTests.Browser(server: server)
            let list = try await browser.send("GET", "/app")
            #expect(list.status == 200 && list.text.contains("Pending 50 end") && !list.text.contains("Pending 51 end"))
            #expect(list.text.contains("More alerts are pending"), "\(list.text)")
        }
    }

    @Test("without tokens a notification opens the alert's page itself, and its http actions still answer")
    func openNotify() async throws {
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        try await LiveServer.with(transport: .inProcess, {
            $0.notifyTargets = [NotifyTarget.ntfy(receiver.url("/local"))!]
        }) { server in
            let id = try await server.create(#"{"title":"Local","buttons":["No","Yes"]}"#)
            #expect(await TestTime.until(every: .milliseconds(20)) { !receiver.requests.isEmpty })
            let message = try #require(receiver.requests.first)
            #expect(message.json["click"]?.stringValue?.hasSuffix("/app/alerts/\(id)") == true, "\(message.text)")
            let yes = try #require(message.json["actions"]?[2]?["url"]?.stringValue)
            let start = try #require(yes.range(of: "/app/answer")).lowerBound
            let path = String(yes[start...])
            let answered = try await server.send("POST", path, body: "{}")
            #expect(answered.status == 200 && answered.json["buttonTitle"]?.stringValue == "Yes", "\(answered.text)")
        }
    }

    @Test("--notify posts ntfy's JSON publish message; its http actions answer the alert once, as ntfy sends them")
    func ntfy() async throws {
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        try await LiveServer.with(transport: .inProcess, {
            $0.tokens = try! AccessTokens(parsing: ResponderPageTests.tokens, source: "test")
            $0.notifyTargets = [NotifyTarget.ntfy(receiver.url("/alerts-topic"))!]
            $0.notifyResponder = "alice"
            $0.publicURL = "https://alertd.example"
        }) { server in
            let response = try await server.send("POST", "/v1/alerts", body: """
                {"title":"Restart db?","message":"primary","buttons":["No","Restart"],"destructive":["Restart"]}
                """, headers: [("Authorization", "Bearer \(ResponderPageTests.producer)")])
            let id = try #require(response.json["id"]?.stringValue)
            #expect(await TestTime.until(every: .milliseconds(20)) { !receiver.requests.isEmpty })
            let message = try #require(receiver.requests.first)
            #expect(message.target == "/" && message.method == "POST")
            #expect(message.json["topic"]?.stringValue == "alerts-topic")
            #expect(message.json["title"]?.stringValue == "Restart db?" && message.json["priority"] == .integer(4))
            let actions = message.json["actions"]?.arrayValue ?? []
            #expect(actions.map { $0["action"]?.stringValue } == ["view", "http", "http"])
            #expect(actions[0]["url"]?.stringValue?.hasPrefix("https://alertd.example/app/link?l=") == true)
            let restart = try #require(actions[2]["url"]?.stringValue)
            #expect(actions[2]["label"]?.stringValue == "Restart")
            let target = String(restart.dropFirst("https://alertd.example".count))
            let answered = try await server.send("POST", target, body: actions[2]["body"]?.stringValue,
                                                 headers: [("Content-Type", "application/json")])
            #expect(answered.status == 200 && answered.json["responder"]?.stringValue == "alice", "\(answered.text)")
            #expect(answered.json["buttonTitle"]?.stringValue == "Restart")
            let again = try await server.send("POST", target, body: "{}")
            #expect(again.status == 403 && again.isProblem)
            let other = String((actions[1]["url"]?.stringValue ?? "").dropFirst("https://alertd.example".count))
            #expect(try await server.send("POST", other, body: "{}").status == 409, "already answered")
            _ = id
        }
    }
}

@Suite("--notify across a restart", .spawnsProcesses)
struct NotifyRestartTests {
    @Test("with a data dir, a notification still being retried at shutdown is sent after the restart")
    func atLeastOnce() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("alertd-notify-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let down = try WebhookReceiver(statuses: [503])
        defer { down.stop() }
        var id = ""
        try await LiveServer.with(transport: .inProcess, {
            $0.dataDirectory = directory.path
            $0.notifyTargets = [NotifyTarget.webhook(down.url())!]
        }) { server in
            id = try await server.create(#"{"title":"Across","buttons":["No","Yes"]}"#)
            #expect(await TestTime.until(every: .milliseconds(20)) { !down.requests.isEmpty }, "the first attempt")
        }
        let up = try WebhookReceiver()
        defer { up.stop() }
        try await LiveServer.with(transport: .inProcess, {
            $0.dataDirectory = directory.path
            $0.notifyTargets = [NotifyTarget.webhook(up.url())!]
        }) { _ in
            #expect(await TestTime.until(every: .milliseconds(20)) { !up.requests.isEmpty }, "sent again")
            #expect(up.requests.first?.json["alert"]?["id"]?.stringValue == id)
            // Done once the outbox says so (a moment after the receiver's answer), not before.
            let outbox = directory.appendingPathComponent("notify-outbox")
            #expect(await TestTime.until(every: .milliseconds(20)) {
                ((try? String(contentsOf: outbox, encoding: .utf8)) ?? "").contains("-\(id)\n")
            })
        }
        // Delivered now: a third start sends nothing.
        let quiet = try WebhookReceiver()
        defer { quiet.stop() }
        try await LiveServer.with(transport: .inProcess, {
            $0.dataDirectory = directory.path
            $0.notifyTargets = [NotifyTarget.webhook(quiet.url())!]
        }) { server in
            _ = try await server.create(#"{"title":"Marker","buttons":["OK"]}"#)
            #expect(await TestTime.until(every: .milliseconds(20)) { !quiet.requests.isEmpty })
            #expect(quiet.requests.allSatisfy { $0.json["alert"]?["title"]?.stringValue == "Marker" },
                    "\(quiet.requests.map(\.text))")
        }
    }
}

@Suite("Single-alert links across a restart", .spawnsProcesses)
struct LinkRestartTests {
    @Test("with a data dir, a link used before a restart is refused after it, its alert still pending")
    func usedOnceAcrossRestart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("alertd-links-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let configure: (inout AlertdConfiguration) -> Void = {
            $0.dataDirectory = directory.path
            $0.tokens = try! AccessTokens(parsing: ResponderPageTests.tokens, source: "test")
            $0.notifyTargets = [NotifyTarget.webhook(receiver.url())!]
            $0.notifyResponder = "bob"
        }
        var link = ""
        var unused = ""
        var id = ""
        try await LiveServer.with(transport: .inProcess, configure) { server in
            id = try await ResponderPageTests().create(server, #"{"title":"Across","buttons":["No","Yes"]}"#)
            _ = try await ResponderPageTests().create(server, #"{"title":"Later","buttons":["No","Yes"]}"#)
            #expect(await TestTime.until(every: .milliseconds(20)) { receiver.requests.count >= 2 })
            let links = Dictionary(uniqueKeysWithValues: receiver.requests.map {
                ($0.json["alert"]?["title"]?.stringValue ?? "", $0.json["link"]?.stringValue ?? "")
            })
            link = try #require(links["Across"]?.split(separator: "/app/").last.map { "/app/" + $0 })
            unused = try #require(links["Later"]?.split(separator: "/app/").last.map { "/app/" + $0 })
            let opened = try await Self.use(link, server)
            #expect(opened.status == 303 && opened.headers["location"] == "/app/alerts/\(id)", "\(opened.text)")
        }
        let record = try String(contentsOf: directory.appendingPathComponent("used-links"), encoding: .utf8)
        #expect(record.split(separator: "\n").count == 1, "one line per used link: \(record)")
        try await LiveServer.with(transport: .inProcess, configure) { server in
            let alert = try await server.send("GET", "/v1/alerts/\(id)",
                                              headers: [("Authorization", "Bearer \(ResponderPageTests.alice)")])
            #expect(alert.json["state"]?.stringValue == "pending", "\(alert.text)")
            let reused = try await Self.use(link, server)
            #expect(reused.status == 403 && reused.text.contains("used already"), "\(reused.text)")
            let fresh = try await Self.use(unused, server)
            #expect(fresh.status == 303, "a link not used before the restart still works: \(fresh.text)")
            let twice = try await Self.use(unused, server)
            #expect(twice.status == 403 && twice.text.contains("used already"), "\(twice.text)")
        }
    }

    @Test("at start the record drops the links that have expired and a line a crash cut short")
    func pruned() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("alertd-links-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let now = Date()
        let later = Int64(now.timeIntervalSince1970) + 3600
        let earlier = Int64(now.timeIntervalSince1970) - 10
        try "live \(later)\ngone \(earlier)\ntorn".write(to: directory.appendingPathComponent("used-links"),
                                                          atomically: true, encoding: .utf8)
        let record = try UsedLinks(directory: directory.path, now: now)
        #expect(Set(record.restored.keys) == ["live"])
        let text = try String(contentsOf: directory.appendingPathComponent("used-links"), encoding: .utf8)
        #expect(text == "live \(later)\n")
        let key = PageKey.ephemeral()
        let pages = PageAccess(key: key, usedLinks: record)
        let token = pages.signLink(alert: AlertID(rawValue: "A1"), responder: "alice", now: now)
        _ = try pages.useLink(token, now: now)
        let again = try UsedLinks(directory: directory.path, now: now)
        #expect(again.restored.count == 2, "the use was on disk before useLink returned")
        #expect(throws: PageAccess.LinkRefusal.used) {
            try PageAccess(key: key, usedLinks: again).useLink(token, now: now)
        }
    }

    /// Opens `link` as a phone does: its page, then its one button.
    static func use(_ link: String, _ server: LiveServer) async throws -> WireResponse {
        var phone = ResponderPageTests.Browser(server: server)
        let page = try await phone.send("GET", link, headers: [])
        return try await phone.send("POST", "/app/link", form: [
            ("csrf", ResponderPageTests.Browser.csrf(in: page)), ("l", String(link.split(separator: "l=").last ?? ""))])
    }
}

@Suite("ntfy credentials", .spawnsProcesses)
struct NotifyCredentialTests {
    static let token = "tk_AgQdq7mVBoFD37zQVN29RhuMzNIz"

    @Test("a token file gives Bearer, user:password gives Basic; both ways at once, or a bad one, are refused")
    func commandLine() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("alertd-ntfy-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("ntfy-token").path
        try "\(Self.token)\n".write(toFile: file, atomically: true, encoding: .utf8)
        func configuration(_ arguments: [String], _ environment: [String: String] = [:]) throws(ConfigurationError)
            -> AlertdConfiguration {
            guard case .run(let configuration) = try AlertdConfiguration.command(
                arguments: ["--notify", "https://ntfy.example/alerts"] + arguments, environment: environment)
            else { throw ConfigurationError(description: "not a run") }
            return configuration
        }
        #expect(try configuration(["--notify-token-file", file]).notifyCredential?.authorization
                    == "Bearer \(Self.token)")
        let basic = try configuration([], ["ALERTD_NOTIFY_TOKEN": "alertd:pa ss:word"]).notifyCredential
        #expect(basic?.authorization == "Basic " + Data("alertd:pa ss:word".utf8).base64EncodedString())
        #expect("\(basic!)" == "a user:password", "never shown")
        #expect(throws: ConfigurationError.self) {
            try configuration(["--notify-token-file", file], ["ALERTD_NOTIFY_TOKEN": Self.token])
        }
        let missing = directory.appendingPathComponent("missing").path
        #expect(throws: ConfigurationError.self) { try configuration(["--notify-token-file", missing]) }
        try "\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(throws: ConfigurationError.self) { try configuration(["--notify-token-file", file]) }
        #expect(throws: ConfigurationError.self) { try configuration([], ["ALERTD_NOTIFY_TOKEN": "tk_a\r\nX-Evil: 1"]) }
        // A bad target's message does not repeat the password in it.
        do throws(ConfigurationError) {
            _ = try configuration(["--notify", "https://alertd:hunter2@ntfy.example/"])
            Issue.record("a topic URL without a topic was taken")
        } catch {
            #expect(!error.description.contains("hunter2") && error.description.contains("***@ntfy.example"),
                    "\(error.description)")
        }
    }

    @Test("alertd sends ntfy the token as Bearer and a URL's user:password as Basic, and never logs or shows them")
    func sentNeverShown() async throws {
        let tokened = try WebhookReceiver(statuses: [503, 200])
        defer { tokened.stop() }
        let own = try WebhookReceiver()
        defer { own.stop() }
        let webhook = try WebhookReceiver()
        defer { webhook.stop() }
        let child = try await AlertdProcess.start(arguments: [
            "--notify", tokened.url("/alerts"), "--notify", "http://alertd:p%40ss@127.0.0.1:\(own.port)/alerts",
            "--notify-webhook", webhook.url(),
        ], environment: ["ALERTD_NOTIFY_TOKEN": Self.token])
        let created = try await child.send("POST", "/v1/alerts", body: #"{"title":"Deploy?","buttons":["No","Yes"]}"#,
                                           headers: [("Content-Type", "application/json")])
        #expect(created.status == 201)
        #expect(await TestTime.until(every: .milliseconds(20)) {
            tokened.requests.count >= 2 && !own.requests.isEmpty && !webhook.requests.isEmpty
        }, "the first ntfy attempt fails (503) and is retried")
        #expect(tokened.requests.allSatisfy { $0.headers["authorization"] == "Bearer \(Self.token)" })
        #expect(own.requests.first?.headers["authorization"]
                    == "Basic " + Data("alertd:p@ss".utf8).base64EncodedString(), "the URL's own, not the token")
        #expect(own.requests.first?.target == "/" && own.requests.first?.headers["host"] == "127.0.0.1:\(own.port)")
        #expect(webhook.requests.first?.headers["authorization"] == nil, "the ntfy token is for ntfy targets")
        let metrics = try await child.send("GET", "/metrics").text
        #expect(await child.stop() == 0)
        #expect(child.standardError.contains("notification failed"), "\(child.standardError)")
        for secret in [Self.token, "p%40ss", "p@ss", Data("alertd:p@ss".utf8).base64EncodedString()] {
            #expect(!child.standardError.contains(secret) && !child.standardOutput.contains(secret)
                        && !metrics.contains(secret), "\(secret) shown")
        }
    }
}
