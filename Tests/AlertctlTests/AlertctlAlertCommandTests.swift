import Foundation
import Testing

@Suite("alertctl alert")
struct AlertctlAlertCommandTests {
    @Test("without --wait prints the new alert's id; the alert has what the options said")
    func postPrintsID() async throws {
        try await AlertctlServer.with { server in
            let output = try await server.alertctl(
                "alert", "Deploy to prod?", "--message", "Build 12 passed", "--button", "Cancel", "--button", "Deploy",
                "--destructive", "Deploy", "--presenter", "ci", "--tag", "42", "--timeout", "300")
            #expect(output.status == 0, "\(output)")
            let id = try #require(output.lines.first)
            #expect(output.lines.count == 1 && id.count == 22)
            let alert = try await server.alert(id)
            #expect(alert["title"] as? String == "Deploy to prod?")
            #expect(alert["message"] as? String == "Build 12 passed")
            #expect(alert["presenter"] as? String == "ci")
            #expect(alert["tag"] as? Int == 42)
            #expect(alert["expiresAt"] is String)
            let buttons = try #require(alert["buttons"] as? [[String: Any]])
            #expect(buttons.map { $0["title"] as? String } == ["Cancel", "Deploy"])
            #expect(buttons.map { $0["style"] as? String } == ["cancel", "destructive"])
        }
    }

    @Test("post is an alias; --cancel, --field, --secure-field and --style shape the alert")
    func postAliasAndShapes() async throws {
        try await AlertctlServer.with { server in
            let login = try await server.alertctl(
                "post", "--title", "Login", "--button", "Log in", "--cancel", "Not now", "--field", "Username",
                "--secure-field", "Password")
            #expect(login.status == 0, "\(login)")
            let alert = try await server.alert(try #require(login.lines.first))
            let buttons = try #require(alert["buttons"] as? [[String: Any]])
            #expect(buttons.map { $0["title"] as? String } == ["Not now", "Log in"])
            let fields = try #require(alert["fields"] as? [[String: Any]])
            #expect(fields.map { $0["placeholder"] as? String } == ["Username", "Password"])
            #expect(fields.map { $0["secure"] as? Bool } == [false, true])

            let sheet = try await server.alertctl(
                "alert", "-m", "Pick one", "--style", "actionSheet", "-b", "A", "-b", "B")
            let sheetAlert = try await server.alert(try #require(sheet.lines.first))
            #expect(sheetAlert["style"] as? String == "actionSheet")
            #expect(sheetAlert["title"] as? String == "")
        }
    }

    @Test("--json without --wait prints the created alert")
    func postJSON() async throws {
        try await AlertctlServer.with { server in
            let output = try await server.alertctl("alert", "Hi", "--json")
            let json = try #require(output.json, "\(output)")
            #expect(json["state"] as? String == "pending")
            #expect(json["result"] is NSNull && json["expiresAt"] is NSNull)
            #expect((json["id"] as? String)?.count == 22)
            #expect(output.stdout.hasPrefix("{\"id\":"), "members in the API's order")
        }
    }

    @Test("--wait exits 0 and prints the button when a responder chooses a non-cancel button")
    func waitAccepted() async throws {
        try await AlertctlServer.with { server in
            let running = try server.start(
                "alert", "Deploy to prod?", "--button", "Cancel", "--button", "Deploy", "--wait")
            let id = try await server.pendingID(of: running)
            #expect(try await server.answer(id, #"{"button":"Deploy"}"#) == 200)
            let output = try await running.finish()
            #expect(output.status == 0, "\(output)")
            #expect(output.lines == ["Deploy"])
        }
    }

    @Test("--wait exits 1 on the cancel button")
    func waitCancelled() async throws {
        try await AlertctlServer.with { server in
            let running = try server.start("alert", "Deploy?", "--button", "Cancel", "--button", "Deploy", "--wait")
            let id = try await server.pendingID(of: running)
            try await server.answer(id, #"{"buttonIndex":0}"#)
            let output = try await running.finish()
            #expect(output.status == 1, "\(output)")
            #expect(output.lines == ["Cancel"])
        }
    }

    @Test("a Cancel prints its title and no blank lines for the fields, with --wait and with answer; a reason is printed")
    func cancelPrintsNoBlankLines() async throws {
        try await AlertctlServer.with { server in
            let running = try server.start(
                "alert", "Login", "-b", "Cancel", "-b", "Log in", "--field", "User", "--secure-field", "Password",
                "--wait")
            let id = try await server.pendingID(of: running)
            try await server.answer(id, #"{"button":"Cancel"}"#)
            let output = try await running.finish()
            #expect(output.status == 1, "\(output)")
            #expect(output.stdout == "Cancel\n", "\(output)")

            let other = try await server.create(
                #"{"title":"Login","buttons":["Cancel","Log in"],"fields":[{"placeholder":"User"},{}]}"#)
            let answered = try await server.alertctl("answer", other, "--button", "Cancel")
            #expect(answered.status == 0, "\(answered)")
            #expect(answered.stdout == "Cancel\n", "\(answered)")

            // A cancel that carries a reason (a deny) prints it.
            let denied = try await server.create(
                #"{"title":"Allow Bash?","buttons":[{"title":"Deny","style":"cancel"},"Allow"],"fields":[{}]}"#)
            let reason = try await server.alertctl("answer", denied, "--button", "Deny", "--value", "not on Fridays")
            #expect(reason.status == 0, "\(reason)")
            #expect(reason.stdout == "Deny\nnot on Fridays\n", "\(reason)")
        }
    }

    @Test("--wait exits 1 when the alert is dismissed, and says so")
    func waitDismissed() async throws {
        try await AlertctlServer.with { server in
            let running = try server.start("alert", "Deploy?", "--button", "Cancel", "--button", "Deploy", "--wait")
            let id = try await server.pendingID(of: running)
            #expect(try await server.dismiss(id) == 200)
            let output = try await running.finish()
            #expect(output.status == 1, "\(output)")
            #expect(output.stderr.contains("dismissed"))
        }
    }

    @Test("--wait exits 1 when the alert expires, even with a single button")
    func waitExpired() async throws {
        try await AlertctlServer.with { server in
            let output = try await server.alertctl("alert", "Quick", "--timeout", "0.3", "--wait")
            #expect(output.status == 1, "\(output)")
            #expect(output.lines == ["OK"])
            #expect(output.stderr.contains("alertctl: the alert expired"), "\(output)")
            #expect(!output.stderr.contains("was expired"))
        }
    }

    @Test("--wait prints the field values one per line, secure ones too; --json prints the Result")
    func waitFieldsAndJSON() async throws {
        try await AlertctlServer.with { server in
            let plain = try server.start(
                "alert", "Login", "-b", "Cancel", "-b", "Log in", "--field", "User", "--secure-field", "Password",
                "--wait")
            let id = try await server.pendingID(of: plain)
            try await server.answer(id, #"{"button":"Log in","values":["alice","s3cret"]}"#)
            let output = try await plain.finish()
            #expect(output.status == 0, "\(output)")
            #expect(output.lines == ["Log in", "alice", "s3cret"])

            let json = try server.start(
                "alert", "Login", "-b", "Cancel", "-b", "Log in", "--field", "User", "--wait", "--json")
            let second = try await server.pendingID(of: json)
            try await server.answer(second, #"{"buttonIndex":1,"values":["bob"]}"#)
            let result = try await json.finish()
            #expect(result.status == 0, "\(result)")
            let object = try #require(result.json, "\(result)")
            #expect(object["buttonIndex"] as? Int == 1)
            #expect(object["buttonTitle"] as? String == "Log in")
            #expect(object["ok"] as? Bool == true)
            #expect(object["values"] as? [String] == ["bob"])
            #expect(object["resolution"] as? String == "answered")
            #expect(object["resolvedAt"] is String)
        }
    }

    @Test("a rejected alert exits 4 and names each bad member")
    func rejected() async throws {
        try await AlertctlServer.with { server in
            let output = try await server.alertctl("alert", "x", "--button", "A", "--cancel", "B", "--destructive", "B")
            #expect(output.status == 4, "\(output)")
            #expect(output.stderr.contains("/destructive/0"))
            let presenter = try await server.alertctl("alert", "x", "--presenter", "no spaces allowed")
            #expect(presenter.status == 4, "\(presenter)")
            #expect(presenter.stderr.contains("/presenter"))
        }
    }

    @Test("--timeout takes units: alert --timeout 1h30m expires in 5400 s; wait --timeout 300ms exits 7")
    func timeoutUnits() async throws {
        try await AlertctlServer.with { server in
            let posted = try await server.alertctl("alert", "Later", "--timeout", "1h30m", "--json")
            #expect(posted.status == 0, "\(posted)")
            let created = try #require(Self.date(posted.json?["createdAt"] as? String ?? ""), "\(posted)")
            let expires = try #require(Self.date(posted.json?["expiresAt"] as? String ?? ""), "\(posted)")
            #expect(abs(expires.timeIntervalSince(created) - 5400) < 1)
            let id = try #require(posted.json?["id"] as? String)
            let waited = try await server.alertctl("wait", id, "--timeout", "300ms")
            #expect(waited.status == 7, "\(waited)")
        }
    }

    private static func date(_ text: String) -> Date? {
        try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
