import Foundation
import HTTPTestSupport
import Testing

/// `alertctl demo`, the seeds' sample app, in a real terminal (tmux); its alerts answered over HTTP or from
/// `alertctl dashboard` in a second window.
@Suite("alertctl demo in a terminal", .spawnsProcesses, .enabled(if: TmuxSession.tmux != nil, "needs tmux (apt-get install tmux)"))
struct DemoTests {
    private func withDemo(_ body: (AlertctlServer, TmuxSession) async throws -> Void) async throws {
        try await AlertctlServer.with { server in
            try await TmuxSession.withAlertctl(["--url", server.url, "demo"], columns: 100, rows: 24) { session in
                try await session.waitFor("ViewController", "[ 1  Click Me ]", "[ 2  Show secret ]", "debugLabel:")
                try await body(server, session)
            }
        }
    }

    /// Polls until one alert is pending for `presenter` and returns it as JSON.
    private func pendingAlert(_ server: AlertctlServer, presenter: String) async throws -> [String: Any] {
        var alert: [String: Any]?
        _ = try await TestTime.until(every: .milliseconds(40)) {
            let (_, list) = try await server.request("GET", "/v1/alerts?presenter=\(presenter)")
            alert = (list["alerts"] as? [[String: Any]])?.first
            return alert != nil
        }
        if let alert { return alert }
        throw AlertctlTestError("no alert pending for presenter \(presenter)")
    }

    private func titles(_ alert: [String: Any]) -> [String] {
        (alert["buttons"] as? [[String: Any]])?.compactMap { $0["title"] as? String } ?? []
    }

    @Test("Click Me puts up Cancel and OK through alertd; the pressed title appears in the debug label")
    func clickMe() async throws {
        try await withDemo { server, session in
            for answer in ["Cancel", "OK"] {
                try await session.press("1")
                try await session.waitFor("waiting for an answer in alertctl dashboard")
                let alert = try await pendingAlert(server, presenter: "root")
                #expect(titles(alert) == ["Cancel", "OK"])
                let id = try #require(alert["id"] as? String)
                #expect(try await server.answer(id, #"{"button":"\#(answer)"}"#) == 200)
                let screen = try await session.waitFor("debugLabel: \(answer)")
                #expect(!screen.contains("waiting for an answer"))
            }
        }
    }

    @Test("Show secret presents PopView; its dismiss alert goes to presenter PopView and its one button dismisses it")
    func popView() async throws {
        try await withDemo { server, session in
            try await session.press("Down", "Enter")
            try await session.waitFor("PopView", "[ 1  Dismiss ]")
            try await session.press("1")
            try await session.waitFor("waiting for an answer in alertctl dashboard")
            let alert = try await pendingAlert(server, presenter: "PopView")
            #expect(titles(alert) == ["OK"])
            #expect(alert["message"] as? String == "Bye bye.")
            let id = try #require(alert["id"] as? String)
            #expect(try await server.answer(id, #"{"buttonIndex":0}"#) == 200)
            let screen = try await session.waitFor("debugLabel: OK")
            #expect(!screen.contains("[ 1  Dismiss ]"))
            #expect(screen.contains("[ 1  Click Me ]"))
        }
    }

    @Test("the demo's alert is answered from alertctl dashboard in another terminal window")
    func answeredFromDashboard() async throws {
        try await withDemo { server, session in
            try await session.openWindow("dashboard", alertctl: ["--url", server.url, "dashboard"])
            try await session.waitFor("connected", window: "dashboard")
            try await session.press("1")
            try await session.waitFor("waiting for an answer in alertctl dashboard")
            try await session.waitFor("Hello", window: "dashboard")
            // Two keys: open, then Enter on the focused OK.
            try await session.press("Enter", window: "dashboard")
            try await session.waitFor("[1 Cancel]", "[2 OK]", window: "dashboard")
            try await session.press("Enter", window: "dashboard")
            try await session.waitFor("→ OK", window: "dashboard")
            try await session.waitFor("debugLabel: OK")
        }
    }

    @Test("quitting while an alert waits withdraws it and restores the terminal")
    func quitWithdraws() async throws {
        try await withDemo { server, session in
            try await session.press("1")
            let alert = try await pendingAlert(server, presenter: "root")
            let id = try #require(alert["id"] as? String)
            try await session.waitFor("waiting for an answer")
            try await session.press("q")
            #expect(try await session.waitForExit() == 0)
            let (status, result) = try await server.request("GET", "/v1/alerts/\(id)/response")
            #expect(status == 200)
            #expect(result["resolution"] as? String == "dismissed")
            #expect(!(try await session.capture()).contains("ViewController"))
        }
    }
}
