import AlertServer
import Foundation
import Testing

/// The dashboard's navigation in a real terminal: help, search, presenter filter, paging, marks, the sticky group
/// header, and the detail line with its countdown.
@Suite("dashboard keys and marks", .spawnsProcesses, .enabled(if: TmuxSession.tmux != nil, "needs tmux (apt-get install tmux)"))
struct DashboardKeysTests {
    private func withDashboard(
        rows: Int = 40, _ arguments: [String] = [], _ body: (AlertctlServer, TmuxSession) async throws -> Void
    ) async throws {
        try await AlertctlServer.with { server in
            try await TmuxSession.withAlertctl(["--url", server.url, "dashboard"] + arguments, rows: rows) { session in
                try await session.waitFor("alertctl dashboard", "connected")
                try await body(server, session)
            }
        }
    }

    @Test("? shows every key; any key closes it")
    func help() async throws {
        try await withDashboard { _, session in
            try await session.waitFor("? help")
            try await session.press("?")
            let screen = try await session.waitFor("keys", "search titles and messages", "show one presenter only")
            for key in ["PgUp PgDn", "Home End", "Tab  Shift-Tab", "Esc", "Ctrl-L", "destructive buttons"] {
                #expect(screen.contains(key), "\(key) is missing from the help:\n\(screen)")
            }
            try await session.press("q")
            try await session.waitForAbsence(of: "search titles and messages")
            #expect(try await session.exitStatus() == nil, "q closed the help, it did not quit")
        }
    }

    @Test("/ narrows the list to titles and messages that contain the text; Esc shows all again")
    func search() async throws {
        try await withDashboard { server, session in
            _ = try await server.create(#"{"title":"Deploy web"}"#)
            _ = try await server.create(#"{"title":"Rotate logs","message":"before the disk fills"}"#)
            _ = try await server.create(#"{"title":"Backup","message":"then deploy the db"}"#)
            try await session.waitFor("Deploy web", "Rotate logs", "Backup", "3 pending")
            try await session.press("/")
            try await session.type("DEPLOY")
            let narrowed = try await session.waitFor("2 of 3 pending", "/DEPLOY")
            #expect(narrowed.contains("Deploy web") && narrowed.contains("Backup") && !narrowed.contains("Rotate logs"))
            try await session.press("Enter")
            try await session.press("Enter")
            try await session.waitFor("[1 OK]")
            try await session.press("q")
            try await session.press("Escape")
            try await session.waitFor("Rotate logs", "3 pending")
        }
    }

    @Test("p shows one presenter only, following its new alerts; an empty name shows all again")
    func presenterFilter() async throws {
        try await withDashboard { server, session in
            _ = try await server.create(#"{"title":"For root"}"#)
            _ = try await server.create(#"{"title":"For ops","presenter":"ops"}"#)
            try await session.waitFor("For root", "For ops")
            try await session.press("p")
            try await session.waitFor("presenter (empty for all):")
            try await session.type("ops")
            try await session.press("Enter")
            let filtered = try await session.waitFor("presenter ops", "1 pending", "For ops")
            #expect(!filtered.contains("For root"))
            _ = try await server.create(#"{"title":"Later for ops","presenter":"ops"}"#)
            _ = try await server.create(#"{"title":"Later for root"}"#)
            let followed = try await session.waitFor("Later for ops", "2 pending")
            #expect(!followed.contains("Later for root"))
            try await session.press("p")
            try await session.press("C-u")
            try await session.press("Enter")
            try await session.waitFor("For root", "Later for root", "4 pending")
        }
    }

    @Test("PgUp/PgDn and Home/End page; more above/below marks; the top row's group header stays visible")
    func pagingAndMarks() async throws {
        try await withDashboard(rows: 20) { server, session in
            for number in 1...25 {
                _ = try await server.create(#"{"title":"Alert \#(number < 10 ? "0" : "")\#(number)"}"#)
            }
            let first = try await session.waitFor("Alert 01", "25 pending", "16 more below")
            #expect(!first.contains("more above"))
            try await session.press("PageDown")
            try await session.press("PageDown")
            let middle = try await session.waitFor("more above", "more below", "Alert 19")
            #expect(Self.line(2, of: middle).contains("root (25)"), "the group header is on the top row:\n\(middle)")
            #expect(!middle.contains("Alert 01"))
            try await session.press("End")
            let end = try await session.waitFor("Alert 25", "more above")
            #expect(!end.contains("more below"))
            #expect(Self.line(2, of: end).contains("root (25)"), "\(end)")
            try await session.press("PageUp")
            try await session.waitFor("more below")
            try await session.press("Home")
            let home = try await session.waitFor("Alert 01")
            #expect(!home.contains("more above"))
        }
    }

    @Test("the detail line shows id, presenter, owner, tag and age, and counts down an alert's time")
    func detailAndCountdown() async throws {
        try await withDashboard { server, session in
            let id = try await server.create(#"{"title":"Rotate the logs?","tag":7,"presenter":"ops","timeout":40}"#)
            let screen = try await session.waitFor("id \(id)", "presenter ops", "tag 7", "age ", "expires in 0:")
            let first = try #require(Self.countdown(in: screen), "\(screen)")
            #expect((35...40).contains(first), "\(screen)")
            try await session.waitUntil("the countdown to move on") { screen in
                (Self.countdown(in: screen) ?? first) <= first - 2
            }
        }
    }

    /// Line `index` of a captured screen.
    static func line(_ index: Int, of screen: String) -> String {
        let lines = screen.components(separatedBy: "\n")
        return lines.indices.contains(index) ? lines[index] : ""
    }

    /// The seconds in the detail line's "expires in 0:SS".
    static func countdown(in screen: String) -> Int? {
        guard let line = screen.components(separatedBy: "\n").first(where: { $0.contains(" id ") }),
              let range = line.range(of: "expires in 0:") else { return nil }
        return Int(line[range.upperBound...].prefix(2))
    }
}
