import Foundation
import Testing

@Suite("alertctl get, wait, answer, dismiss, list, watch", .spawnsProcesses)
struct AlertctlCommandTests {
    @Test("get prints the alert with secure values masked; --json shows them")
    func get() async throws {
        try await AlertctlServer.with { server in
            let id = try await server.create(
                #"{"title":"Login","buttons":["Cancel","Log in"],"#
                    + #""fields":[{"placeholder":"User"},{"placeholder":"Password","secure":true}]}"#)
            try await server.answer(id, #"{"button":"Log in","values":["alice","s3cret"]}"#)
            let text = try await server.alertctl("get", id)
            #expect(text.status == 0, "\(text)")
            #expect(text.stdout.contains("Login") && text.stdout.contains("answered: Log in"))
            #expect(text.stdout.contains("\"alice\""))
            #expect(!text.stdout.contains("s3cret"))
            let json = try await server.alertctl("get", id, "--json")
            let result = try #require(json.json?["result"] as? [String: Any], "\(json)")
            #expect(result["values"] as? [String] == ["alice", "s3cret"])
        }
    }

    @Test("wait exits like alert --wait, and 7 when --timeout passes first")
    func wait() async throws {
        try await AlertctlServer.with { server in
            let id = try await server.create(#"{"title":"Go?","buttons":["No","Yes"]}"#)
            let timedOut = try await server.alertctl("wait", id, "--timeout", "0.5")
            #expect(timedOut.status == 7, "\(timedOut)")
            let running = try server.start("wait", id, "--json")
            await server.waitForWaiters(1)
            try await server.answer(id, #"{"button":"Yes"}"#)
            let output = try await running.finish()
            #expect(output.status == 0, "\(output)")
            #expect(output.json?["buttonTitle"] as? String == "Yes")
            // Already resolved: answers at once.
            let again = try await server.alertctl("wait", id)
            #expect(again.status == 0 && again.lines == ["Yes"], "\(again)")

            let other = try await server.create(#"{"title":"Go?","buttons":["No","Yes"]}"#)
            try await server.answer(other, #"{"button":"No"}"#)
            #expect(try await server.alertctl("wait", other).status == 1)
        }
    }

    @Test("answer --button and --index; a second answer exits 6 with the winner; unknown ids exit 5")
    func answer() async throws {
        try await AlertctlServer.with { server in
            let id = try await server.create(
                #"{"title":"Login","buttons":["Cancel","Log in"],"fields":[{"placeholder":"User"}]}"#)
            let answered = try await server.alertctl("answer", id, "--button", "Log in", "--value", "alice")
            #expect(answered.status == 0, "\(answered)")
            #expect(answered.lines == ["Log in", "alice"])
            let (_, response) = try await server.request("GET", "/v1/alerts/\(id)/response")
            #expect(response["values"] as? [String] == ["alice"])

            let late = try await server.alertctl("answer", id, "--index", "0", "--json")
            #expect(late.status == 6, "\(late)")
            #expect(late.json?["buttonTitle"] as? String == "Log in")
            #expect(late.stderr.contains("already resolved"))

            let missing = try await server.alertctl("answer", "no-such-alert", "--index", "0")
            #expect(missing.status == 5, "\(missing)")

            let other = try await server.create(#"{"title":"Go?","buttons":["No","Yes"]}"#)
            let badTitle = try await server.alertctl("answer", other, "--button", "Maybe")
            #expect(badTitle.status == 4, "\(badTitle)")
            let byIndex = try await server.alertctl("answer", other, "--index", "1")
            #expect(byIndex.status == 0 && byIndex.lines == ["Yes"], "\(byIndex)")
        }
    }

    @Test("answer --button with a title two buttons share exits 4 saying to answer with --index; nothing is sent")
    func ambiguousTitle() async throws {
        try await AlertctlServer.with { server in
            let id = try await server.create(#"{"title":"Which?","buttons":["Same","Other","Same"]}"#)
            let ambiguous = try await server.alertctl("answer", id, "--button", "Same")
            #expect(ambiguous.status == 4, "\(ambiguous)")
            #expect(ambiguous.stderr.contains("2 buttons are titled 'Same' (indexes 0, 2)"), "\(ambiguous)")
            #expect(ambiguous.stderr.contains("answer with --index N"), "\(ambiguous)")
            #expect(!ambiguous.stderr.contains("buttonIndex"), "alertctl's words, not the API's")
            #expect(try await server.alert(id)["state"] as? String == "pending")
            let byIndex = try await server.alertctl("answer", id, "--index", "2")
            #expect(byIndex.status == 0 && byIndex.lines == ["Same"], "\(byIndex)")
        }
    }

    @Test("dismiss withdraws; a second dismiss exits 6")
    func dismiss() async throws {
        try await AlertctlServer.with { server in
            let id = try await server.create(#"{"title":"Go?","buttons":["No","Yes"]}"#)
            let first = try await server.alertctl("dismiss", id, "--json")
            #expect(first.status == 0, "\(first)")
            #expect(first.json?["resolution"] as? String == "dismissed")
            let second = try await server.alertctl("dismiss", id)
            #expect(second.status == 6, "\(second)")
            #expect(try await server.alertctl("dismiss", "nope").status == 5)
        }
    }

    @Test("list shows a table of pending alerts; --json, --presenter, --state, --limit")
    func list() async throws {
        try await AlertctlServer.with { server in
            #expect(try await server.alertctl("list").lines == ["no pending alerts"])
            let deploy = try await server.create(
                #"{"title":"Deploy to prod?","buttons":["Cancel","Deploy"],"destructive":["Deploy"],"presenter":"ci"}"#)
            let disk = try await server.create(#"{"message":"Disk full"}"#)
            let table = try await server.alertctl("list")
            #expect(table.status == 0, "\(table)")
            #expect(table.lines.count == 3)
            #expect(table.lines[0].hasPrefix("AGE") && table.lines[0].contains("PRESENTER"))
            #expect(table.lines[1].contains(deploy) && table.lines[1].contains("Deploy to prod?"))
            #expect(table.lines[1].contains("Cancel | Deploy!") && table.lines[1].contains("ci"))
            #expect(table.lines[2].contains(disk) && table.lines[2].contains("Disk full"))

            let json = try await server.alertctl("list", "--json", "--presenter", "ci")
            let alerts = try #require(json.json?["alerts"] as? [[String: Any]], "\(json)")
            #expect(alerts.map { $0["id"] as? String } == [deploy])
            #expect(json.json?["index"] as? Int == 2)

            try await server.answer(deploy, #"{"button":"Deploy"}"#)
            let resolved = try await server.alertctl("list", "--state", "resolved")
            #expect(resolved.lines.count == 2 && resolved.lines[1].contains("answered: Deploy"), "\(resolved)")
            let limited = try await server.alertctl("list", "--state", "all", "--limit", "1")
            #expect(limited.lines.count == 2 && limited.lines[1].contains(deploy), "\(limited)")
        }
    }

    @Test("ALERTD_URL is used when --url is not given")
    func environmentURL() async throws {
        try await AlertctlServer.with { server in
            _ = try await server.create(#"{"message":"from env"}"#)
            let output = try await AlertctlProcess.run(["list"], environment: ["ALERTD_URL": server.url])
            #expect(output.status == 0 && output.stdout.contains("from env"), "\(output)")
            let flagWins = try await AlertctlProcess.run(
                ["list", "--url", server.url], environment: ["ALERTD_URL": "http://127.0.0.1:1"])
            #expect(flagWins.status == 0, "\(flagWins)")
        }
    }

    @Test("watch prints a line when an alert is posted and when it resolves")
    func watch() async throws {
        try await AlertctlServer.with { server in
            let existing = try await server.create(#"{"message":"already here"}"#)
            let watching = try server.start("watch")
            try await watching.waitForOutput(containing: existing)
            #expect(watching.stdoutSoFar.contains("pending"))
            let id = try await server.create(#"{"title":"Deploy?","buttons":["Cancel","Deploy"]}"#)
            try await watching.waitForOutput(containing: "new        \(id)")
            try await server.answer(id, #"{"button":"Deploy"}"#)
            try await watching.waitForOutput(containing: "answered   \(id)")
            try await server.dismiss(existing)
            try await watching.waitForOutput(containing: "dismissed  \(existing)")
            watching.interrupt()
            _ = try await watching.finish()
        }
    }

    @Test("watch says when alertd goes away, reconnects to the restarted server and follows it")
    func watchReconnects() async throws {
        let first = try AlertctlServer.start()
        let port = first.port
        let watching = try first.start("watch")
        let before = try await first.create(#"{"message":"before the restart"}"#)
        try await watching.waitForOutput(containing: before)
        await first.app.shutdown()
        try await watching.waitForOutput(containing: "lost alertd", errors: true)
        let second = try AlertctlServer.start(port: port)
        let after = try await second.create(#"{"message":"after the restart"}"#)
        try await watching.waitForOutput(containing: after)
        try await watching.waitForOutput(containing: "gone       \(before)")
        watching.interrupt()
        let output = try await watching.finish()
        await second.app.shutdown()
        #expect(output.stderr.contains("lost alertd") && output.stderr.contains("reconnected"), "\(output)")
    }

    @Test("wait says on stderr that alertd is gone and it keeps retrying, instead of sitting silent")
    func waitSaysItRetries() async throws {
        let server = try AlertctlServer.start()
        let id = try await server.create(#"{"title":"Go?","buttons":["No","Yes"]}"#)
        let waiting = try server.start("wait", id)
        await server.waitForWaiters(1)
        await server.app.shutdown()
        try await waiting.waitForOutput(containing: "alertctl: lost alertd at \(server.url)", errors: true)
        try await waiting.waitForOutput(containing: "retrying until it answers", errors: true)
        #expect(waiting.isRunning, "still waiting")
        waiting.interrupt()
        _ = try await waiting.finish()
    }
}
