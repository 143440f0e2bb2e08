import AlertdTestSupport
import Foundation
import Testing

/// A pending list longer than one 1 MiB page of `GET /v1/alerts`: `list`, `watch` and the dashboard show all of it.
@Suite("alertctl over many pages", .spawnsProcesses)
struct AlertctlPagesTests {
    @Test("list prints every alert of three 1 MiB pages, in order; --limit counts over the pages")
    func listFollowsPages() async throws {
        try await AlertctlServer.with { server in
            let created = try await LargestAlert.create(LargestAlert.threePages, port: server.port)
            let table = try await server.alertctl("list", "--limit", "1000")
            #expect(table.status == 0, "\(table.stderr)")
            let rows = table.lines.dropFirst()
            #expect(rows.count == created.count, "\(rows.count) rows for \(created.count) alerts")
            #expect(zip(rows, created).allSatisfy { $0.contains($1) }, "oldest first, each once")
            let limited = try await server.alertctl("list", "--limit", "110")
            #expect(limited.lines.count == 111, "\(limited.lines.count - 1) rows, not 110")
            let json = try await server.alertctl("list", "--json", "--limit", "1000")
            let alerts = try #require(json.json?["alerts"] as? [[String: Any]], "\(json.stderr)")
            #expect(alerts.map { $0["id"] as? String } == created)
            #expect(json.json?["next"] == nil, "complete")
            let cut = try await server.alertctl("list", "--json", "--limit", "110")
            #expect((cut.json?["alerts"] as? [Any])?.count == 110)
            #expect(cut.json?["next"] as? Int != nil, "more follow")
        }
    }

    @Test("watch starts with a pending line for every alert of three pages")
    func watchFollowsPages() async throws {
        try await AlertctlServer.with { server in
            let created = try await LargestAlert.create(LargestAlert.threePages, port: server.port)
            let watching = try server.start("watch")
            try await watching.waitForOutput(containing: try #require(created.last))
            let pending = watching.stdoutSoFar.split(separator: "\n").filter { $0.contains("pending") }
            #expect(pending.count == created.count)
            let id = try await server.create(#"{"title":"After the pages"}"#)
            try await watching.waitForOutput(containing: "new        \(id)")
            try await server.dismiss(created[110])
            try await watching.waitForOutput(containing: "dismissed  \(created[110])")
            watching.interrupt()
            _ = try await watching.finish()
        }
    }

    @Test("the dashboard counts every pending alert of three pages and follows changes on any page",
          .enabled(if: TmuxSession.tmux != nil, "needs tmux (apt-get install tmux)"))
    func dashboardFollowsPages() async throws {
        try await AlertctlServer.with { server in
            let created = try await LargestAlert.create(LargestAlert.threePages, port: server.port)
            try await TmuxSession.withAlertctl(["--url", server.url, "dashboard"]) { session in
                try await session.waitFor(" \(created.count) pending", "connected", "large 0")
                _ = try await server.create(#"{"title":"After the pages"}"#)
                try await session.waitFor(" \(created.count + 1) pending")
                try await server.dismiss(created[110])
                try await session.waitFor(" \(created.count) pending")
                try await server.dismiss(created[0])
                try await session.waitFor(" \(created.count - 1) pending")
            }
        }
    }
}
