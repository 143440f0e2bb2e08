import AlertServer
import Foundation
import Testing

/// `alertctl dashboard` in a real terminal (tmux), against an in-process alertd; alerts posted and checked over HTTP.
@Suite("alertctl dashboard in a terminal", .spawnsProcesses, .enabled(if: TmuxSession.tmux != nil, "needs tmux (apt-get install tmux)"))
struct DashboardTests {
    /// Starts a server and a dashboard on it; `body` gets both once the dashboard says it is connected.
    private func withDashboard(
        columns: Int = 120, rows: Int = 40, _ body: (AlertctlServer, TmuxSession) async throws -> Void
    ) async throws {
        try await AlertctlServer.with { server in
            try await TmuxSession.withAlertctl(["--url", server.url, "dashboard"], columns: columns, rows: rows) {
                session in
                try await session.waitFor("alertctl dashboard", "connected")
                try await body(server, session)
            }
        }
    }

    @Test("a login alert is answered with a username and a secure password the screen never shows")
    func loginWithSecurePassword() async throws {
        let password = "pa55-w0rd!"
        try await withDashboard { server, session in
            session.forbid(password)
            let id = try await server.create(DashboardFixtures.login)
            try await session.waitFor("Login", "Enter your credentials", "2 fields")
            try await session.press("Enter")
            try await session.waitFor("[Username", "[Password", "[1 Cancel]", "[2 Log in]")
            try await session.type("alice")
            try await session.waitFor("[alice")
            try await session.press("Tab")
            // Type the password a few characters at a time, reading the screen after each batch.
            for chunk in ["pa5", "5-w", "0rd!"] {
                try await session.type(chunk)
                try await session.capture()
            }
            let masked = try await session.waitFor("[" + String(repeating: "•", count: password.count) + " ")
            #expect(masked.contains("[alice"))
            // Enter in the last field answers with the default button, "Log in".
            try await session.press("Enter")
            try await session.waitFor("→ Log in", "Username: alice")

            let (status, result) = try await server.request("GET", "/v1/alerts/\(id)/response")
            #expect(status == 200)
            #expect(result["buttonTitle"] as? String == "Log in")
            #expect(result["values"] as? [String] == ["alice", password])

            let history = try await session.capture(history: true)
            #expect(history.contains("Log in"))
            try await session.press("q")
            #expect(try await session.waitForExit() == 0)
            // Back on the normal screen: nothing of the dashboard (and so of the password) is left there.
            let after = try await session.capture(history: true)
            #expect(!after.contains("alertctl dashboard"))
            #expect(session.captureCount > 8)
        }
    }

    @Test("a plain alert is answered in two keys: Enter opens it, Enter chooses the button other than cancel")
    func plainAlertInTwoKeys() async throws {
        try await withDashboard { server, session in
            let id = try await server.create(#"{"title":"Deploy to prod?","buttons":["Cancel","Deploy"]}"#)
            try await session.waitFor("Deploy to prod?")
            try await session.press("Enter")
            try await session.waitFor("[1 Cancel]", "[2 Deploy]")
            try await session.press("Enter")
            try await session.waitFor("→ Deploy")
            let (_, result) = try await server.request("GET", "/v1/alerts/\(id)/response")
            #expect(result["buttonTitle"] as? String == "Deploy")
            #expect(result["resolution"] as? String == "answered")
        }
    }

    @Test("pending alerts are grouped by presenter, oldest first, and new ones appear without a key press")
    func groupedAndLive() async throws {
        try await withDashboard { server, session in
            _ = try await server.create(#"{"title":"First at root"}"#)
            _ = try await server.create(#"{"title":"Photo question","presenter":"photos"}"#)
            _ = try await server.create(#"{"title":"Second at root"}"#)
            let screen = try await session.waitFor("root (2)", "photos (1)", "Second at root", "3 pending")
            let lines = screen.components(separatedBy: "\n")
            func row(_ text: String) -> Int { lines.firstIndex { $0.contains(text) } ?? -1 }
            #expect(row("root (2)") < row("First at root"))
            #expect(row("First at root") < row("Second at root"))
            #expect(row("Second at root") < row("photos (1)"))
            #expect(row("photos (1)") < row("Photo question"))
            // The blocking list query brings a new alert at once; nothing is typed meanwhile.
            _ = try await server.create(#"{"title":"Late arrival","presenter":"photos"}"#)
            try await session.waitFor("Late arrival", "photos (2)", "4 pending")
        }
    }

    @Test("an action sheet stacks its buttons, the cancel button at the bottom in its own box, destructive in red")
    func actionSheet() async throws {
        try await withDashboard { server, session in
            let id = try await server.create(DashboardFixtures.photoSheet)
            try await session.waitFor("Delete this photo?", "action sheet")
            try await session.press("Enter")
            let screen = try await session.waitFor("[1 Delete]", "[2 Move to album]", "[3 Cancel]")
            let lines = screen.components(separatedBy: "\n")
            func row(_ text: String) -> Int { lines.firstIndex { $0.contains(text) } ?? -1 }
            #expect(row("It will be removed") < row("[1 Delete]"))
            #expect(row("[1 Delete]") < row("[2 Move to album]"))
            #expect(row("[2 Move to album]") < row("[3 Cancel]"))
            // The cancel button sits in a box of its own: the main box closes and another opens between them.
            let between = lines[(row("[2 Move to album]") + 1)..<row("[3 Cancel]")]
            #expect(between.contains { $0.contains("└") } && between.contains { $0.contains("┌") }, "\(screen)")

            let colored = try await session.capture(escapes: true)
            #expect(DashboardFixtures.sgr(before: "[1 Delete]", in: colored).contains("31"), "\(colored)")
            #expect(!DashboardFixtures.sgr(before: "[2 Move to album]", in: colored).contains("31"))

            // Numbers choose by displayed position: 3 is the cancel button at the bottom.
            try await session.press("3")
            try await session.waitFor("→ Cancel")
            let (_, result) = try await server.request("GET", "/v1/alerts/\(id)/response")
            #expect(result["buttonIndex"] as? Int == 0)
            #expect(result["ok"] as? Bool == false)
        }
    }

    /// Opens `DashboardFixtures.prefilledLogin`, types "bob" after its username and "topsecret" over its password.
    private func typeOverPrefilledLogin(_ server: AlertctlServer, _ session: TmuxSession) async throws -> String {
        let id = try await server.create(DashboardFixtures.prefilledLogin)
        try await session.waitFor("Login")
        try await session.press("Enter")
        try await session.waitFor("[alice")
        try await session.type("bob")
        try await session.waitFor("[alicebob")
        try await session.press("Tab")
        try await session.press("C-u")
        try await session.type("topsecret")
        try await session.waitFor("[" + String(repeating: "•", count: "topsecret".count) + " ")
        return id
    }

    @Test("Esc answers with the cancel button from inside a text field, with the typed text and the original secret")
    func escapeAnswersCancel() async throws {
        try await withDashboard { server, session in
            let id = try await typeOverPrefilledLogin(server, session)
            try await session.press("Escape")
            try await session.waitFor("→ Cancel")
            let (_, result) = try await server.request("GET", "/v1/alerts/\(id)/response")
            #expect(result["buttonTitle"] as? String == "Cancel")
            #expect(result["ok"] as? Bool == false)
            #expect(result["values"] as? [String] == ["alicebob", "0ld-pw"])
        }
    }

    @Test("choosing the cancel button by its number also sends the typed text, never the typed secret")
    func cancelButtonSendsOriginalTexts() async throws {
        try await withDashboard { server, session in
            let id = try await typeOverPrefilledLogin(server, session)
            try await session.press("Tab")
            try await session.press("1")
            try await session.waitFor("→ Cancel")
            let (_, result) = try await server.request("GET", "/v1/alerts/\(id)/response")
            #expect(result["buttonIndex"] as? Int == 0)
            #expect(result["values"] as? [String] == ["alicebob", "0ld-pw"])
        }
    }

    @Test("an alert answered elsewhere while open: the dashboard says so, goes back to the list and keeps working")
    func answeredElsewhere() async throws {
        try await withDashboard { server, session in
            let id = try await server.create(#"{"title":"Restart the cache?","buttons":["No","Yes"]}"#)
            try await session.waitFor("Restart the cache?")
            try await session.press("Enter")
            try await session.waitFor("[1 No]", "[2 Yes]")
            #expect(try await server.answer(id, #"{"button":"Yes"}"#) == 200)
            let screen = try await session.waitFor("answered elsewhere: Yes")
            #expect(!screen.contains("[1 No]"))
            #expect(try await session.exitStatus() == nil)

            // Still alive: the next alert can be answered.
            let next = try await server.create(#"{"title":"Next one","buttons":["Cancel","Go"]}"#)
            try await session.waitFor("Next one")
            try await session.press("Enter")
            try await session.waitFor("[2 Go]")
            try await session.press("2")
            try await session.waitFor("→ Go")
            #expect(try await server.request("GET", "/v1/alerts/\(next)/response").1["buttonTitle"] as? String == "Go")
        }
    }

    @Test("the dashboard redraws on resize and stays usable, small and large")
    func resize() async throws {
        try await withDashboard { server, session in
            let id = try await server.create(
                #"{"title":"Rotate the logs now, before the disk fills up?","buttons":["Later","Rotate"]}"#)
            try await session.waitFor("Rotate the logs")
            try await session.resize(columns: 60, rows: 18)
            try await session.waitUntil("a 60-column layout") { screen in
                let lines = screen.components(separatedBy: "\n")
                return lines.count <= 19 && lines.allSatisfy { $0.count <= 60 }
                    && lines.last { !$0.isEmpty }?.contains("Enter open") == true
                    && screen.contains("1 pending")
            }
            try await session.press("Enter")
            try await session.waitFor("[1 Later]", "[2 Rotate]")
            try await session.resize(columns: 120, rows: 40)
            try await session.waitUntil("the box in a 120-column layout") { screen in
                screen.contains("[2 Rotate]") && screen.components(separatedBy: "\n").contains { $0.count > 100 }
            }
            try await session.press("Enter")
            try await session.waitFor("→ Rotate")
            #expect(try await server.request("GET", "/v1/alerts/\(id)/response").1["buttonTitle"] as? String
                == "Rotate")
        }
    }

    @Test("a server restart: reconnecting, then connected; the alert open across it is gone; new alerts show")
    func serverRestart() async throws {
        let first = try DashboardFixtures.startServerOnFixedPort()
        let port = first.port
        let url = first.url
        try await TmuxSession.withAlertctl(["--url", url, "dashboard"]) { session in
            try await session.waitFor("connected to \(url)")
            // An alert open across the restart: the new server never had it.
            #expect(try await DashboardFixtures.post(port: port, "/v1/alerts", #"{"title":"Before the restart"}"#)
                == 201)
            try await session.waitFor("Before the restart")
            try await session.press("Enter")
            try await session.waitFor("[1 OK]")
            await first.shutdown()
            try await session.waitFor("reconnecting to \(url)")
            let second = try DashboardFixtures.startServer(port: port)
            do {
                try await session.waitUntil("connected, and the open alert reported gone") { screen in
                    screen.contains("Before the restart: no longer on the server") && screen.contains("connected")
                        && !screen.contains("reconnecting")
                }
                let body = #"{"title":"After the restart"}"#
                let created = try await DashboardFixtures.post(port: port, "/v1/alerts", body)
                #expect(created == 201)
                try await session.waitFor("After the restart", "1 pending")
            } catch {
                await second.shutdown()
                throw error
            }
            await second.shutdown()
        }
    }

    @Test("while the server is away the status line says reconnecting to URL, even right after an answer")
    func reconnectingOnTheStatusLine() async throws {
        let server = try DashboardFixtures.startServer(port: 0)
        let url = server.url
        try await TmuxSession.withAlertctl(["--url", url, "dashboard"]) { session in
            do {
                try await session.waitFor("connected to \(url)")
                let body = #"{"title":"Rotate the keys?","buttons":["Later","Rotate"]}"#
                #expect(try await DashboardFixtures.post(port: server.port, "/v1/alerts", body) == 201)
                try await session.waitFor("Rotate the keys?")
                try await session.press("Enter")
                try await session.waitFor("[2 Rotate]")
                try await session.press("Enter")
                // The status line tells of the answer...
                try await session.waitFor("Rotate the keys?: Rotate")
            } catch {
                await server.shutdown()
                throw error
            }
            await server.shutdown()
            // ...until the server is lost: then it says so (the header alone says "reconnecting").
            try await session.waitFor("reconnecting to \(url)")
        }
    }
}
