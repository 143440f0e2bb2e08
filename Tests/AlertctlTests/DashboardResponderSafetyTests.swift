import AlertServer
import Foundation
import HTTPTestSupport
import Testing

/// What keeps the person on call from missing an alert or sending the wrong answer: the bell, the second key for
/// a destructive button, the word when a key cannot be sent, fields that take only what their keyboard could
/// type, and URLs kept whole (and linked).
@Suite("dashboard: bell, confirmation, keyboards, links", .spawnsProcesses, .enabled(if: TmuxSession.tmux != nil, "needs tmux"))
struct DashboardResponderSafetyTests {
    private func withDashboard(
        _ arguments: [String] = [], environment: [String: String] = [:],
        _ body: (AlertctlServer, TmuxSession) async throws -> Void
    ) async throws {
        try await AlertctlServer.with { server in
            try await TmuxSession.withAlertctl(["--url", server.url, "dashboard"] + arguments,
                                               environment: environment) { session in
                try await session.waitFor("alertctl dashboard", "connected")
                try await body(server, session)
            }
        }
    }

    @Test("a new alert rings the bell; those already pending at start do not")
    func bell() async throws {
        try await AlertctlServer.with { server in
            _ = try await server.create(#"{"title":"Already pending"}"#)
            try await TmuxSession.withAlertctl(["--url", server.url, "dashboard"]) { session in
                try await session.waitFor("Already pending", "connected")
                #expect(try await session.bellRang() == false)
                _ = try await server.create(#"{"title":"Just arrived"}"#)
                try await session.waitFor("Just arrived")
                #expect(try await session.bellRang())
            }
        }
    }

    @Test("--quiet: no bell")
    func quiet() async throws {
        try await withDashboard(["--quiet"]) { server, session in
            _ = try await server.create(#"{"title":"Just arrived"}"#)
            // The bell would come before the screen that shows the alert.
            try await session.waitFor("Just arrived")
            #expect(try await session.bellRang() == false)
        }
    }

    @Test("a destructive button asks for a second key; another key takes it back; Enter then sends it")
    func destructiveConfirmation() async throws {
        try await withDashboard { server, session in
            let id = try await server.create(DashboardFixtures.photoSheet)
            try await session.waitFor("Delete this photo?")
            try await session.press("Enter")
            try await session.waitFor("[1 Delete]")
            try await session.press("1")
            try await session.waitFor("Delete is destructive: press Enter (or y) again")
            #expect(try await server.alert(id)["state"] as? String == "pending", "nothing sent on the first key")
            try await session.press("x")
            try await session.waitForAbsence(of: "is destructive")
            #expect(try await server.alert(id)["state"] as? String == "pending")
            try await session.press("1")
            try await session.waitFor("Delete is destructive")
            try await session.press("Enter")
            try await session.waitFor("→ Delete")
            let (_, result) = try await server.request("GET", "/v1/alerts/\(id)/response")
            #expect(result["buttonTitle"] as? String == "Delete")
        }
    }

    @Test("a key pressed while disconnected says 'not connected: not sent' and sends nothing")
    func disconnected() async throws {
        let app = try DashboardFixtures.startServerOnFixedPort()
        let port = app.port
        try await TmuxSession.withAlertctl(["--url", app.url, "dashboard"]) { session in
            try await session.waitFor("connected to")
            #expect(try await DashboardFixtures.post(port: port, "/v1/alerts", #"{"title":"Deploy?"}"#) == 201)
            try await session.waitFor("Deploy?")
            try await session.press("Enter")
            try await session.waitFor("[1 OK]")
            await app.shutdown()
            try await session.waitFor("reconnecting")
            try await session.press("Enter")
            try await session.waitFor("not connected: not sent")
            #expect(try await session.capture().contains("[1 OK]"), "the alert stays open to answer later")
        }
    }

    @Test("each of the twelve keyboard types takes only what it could type, with a hint; a secure field is never shown")
    func keyboardTypes() async throws {
        let typed = "a1.,+ @x"
        let expected: [(keyboard: String, value: String)] = [
            ("default", "a1.,+ @x"), ("asciiCapable", "a1.,+ @x"), ("numbersAndPunctuation", "1.,+ @"),
            ("URL", "a1.,+@x"), ("numberPad", "1"), ("phonePad", "1.,+ "), ("namePhonePad", "a1.,+ x"),
            ("emailAddress", "a1.,+@x"), ("decimalPad", "1."), ("twitter", "a1.,+ @x"), ("webSearch", "a1.,+ @x"),
            ("asciiCapableNumberPad", "1"),
        ]
        let password = "Pa55:w0rd"
        try await withDashboard { server, session in
            session.forbid(password)
            let output = try await session.recordOutput()
            for (title, batch) in [("First keyboards", Array(expected.prefix(7))),
                                   ("More keyboards", Array(expected.dropFirst(7)))] {
                var fields = batch.map { #"{"placeholder":"\#($0.keyboard)","keyboard":"\#($0.keyboard)"}"# }
                if batch.count < 7 { fields.append(#"{"placeholder":"Password","secure":true}"#) }
                let id = try await server.create(
                    #"{"title":"\#(title)","buttons":["Cancel","OK"],"fields":[\#(fields.joined(separator: ","))]}"#)
                try await session.waitFor(title, "1 pending")
                try await session.press("Enter")
                try await session.waitFor("[1 Cancel]")
                for (keyboard, _) in batch {
                    if keyboard == "numberPad" {
                        try await session.waitFor("type digits 0-9")
                        try await session.type("z")
                        try await session.waitFor("numberPad takes digits 0-9 (numberPad)")
                    }
                    try await session.type(typed)
                    try await session.press("Enter")
                }
                if batch.count < 7 {
                    try await session.type(password)
                    try await session.press("Enter")
                }
                let (_, result) = try await server.request("GET", "/v1/alerts/\(id)/response?wait=10")
                let values = try #require(result["values"] as? [String])
                for (index, (keyboard, value)) in batch.enumerated() {
                    #expect(values[index] == value, "\(keyboard): typed '\(typed)', got '\(values[index])'")
                }
                if batch.count < 7 { #expect(values.last == password) }
            }
            #expect(!output().contains(password), "the password never reaches the terminal")
        }
    }

    @Test("a long URL is never broken across lines; it is an OSC 8 hyperlink when the terminal supports it")
    func urlsStayWhole() async throws {
        let url = "https://ci.example.com/jobs/deploy-production/builds/1432/artifacts/logs?page=2&filter=errors"
        let huge = "https://example.com/" + String(repeating: "x", count: 200)
        try await withDashboard(environment: ["ALERTCTL_HYPERLINKS": "on"]) { server, session in
            let output = try await session.recordOutput()
            _ = try await server.create(#"{"title":"Deploy failed","message":"See \#(url) for the log, or \#(huge) too"}"#)
            try await session.waitFor("Deploy failed")
            try await session.press("Enter")
            let screen = try await session.waitFor(url)
            #expect(screen.components(separatedBy: "\n").contains { $0.contains(url) }, "one line holds it whole")
            #expect(screen.contains("https://example.com/xxx"), "a word wider than the screen keeps a line of its own")
            let links = ["\u{1B}]8;;\(url)\u{1B}\\", "\u{1B}]8;;\(huge)\u{1B}\\"]
            // The links follow the screen that shows them; poll the recording until they are there.
            var recorded = output()
            _ = await TestTime.until(every: .milliseconds(40)) {
                recorded = output()
                return links.allSatisfy(recorded.contains)
            }
            #expect(links.allSatisfy(recorded.contains), "\(recorded.suffix(2000))")
        }
    }

    @Test("without a terminal known to support them, no hyperlink sequences are sent")
    func noHyperlinksByDefault() async throws {
        try await withDashboard { server, session in
            let output = try await session.recordOutput()
            _ = try await server.create(#"{"title":"Look","message":"See https://example.com/log"}"#)
            try await session.waitFor("Look")
            try await session.press("Enter")
            try await session.waitFor("https://example.com/log")
            #expect(!output().contains("\u{1B}]8;;"))
        }
    }
}
