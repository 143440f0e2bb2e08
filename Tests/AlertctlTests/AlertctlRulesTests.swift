import AlertAPI
import AlertServer
import AlertdTestSupport
import Foundation
import HTTPTestSupport
import Testing

/// `alertctl rules` against an alertd with tokens: an admin adds, lists, shows and deletes rules; the rule answers
/// matching alerts as `rule:<name>`; everyone else is told that rules are for admins.
@Suite("alertctl rules", .spawnsProcesses)
struct AlertctlRulesTests {
    static let tokens = "root:admin:alertctl-rules-admin-01,ci:producer:alertctl-rules-producer,"
        + "alice:responder:alertctl-rules-alice-001"
    static let admin = ["ALERTD_TOKEN": "alertctl-rules-admin-01"]

    /// Runs `body` against an alertd with `tokens`; `run` runs alertctl as the admin unless told otherwise.
    private func withServer(
        _ body: (_ app: AlertdApp, _ run: @escaping ([String], [String: String]) async throws -> AlertctlOutput)
            async throws -> Void
    ) async throws {
        try await TestAlertd.with({ $0.tokens = try! AccessTokens(parsing: Self.tokens, source: "test") }) { app in
            try await body(app) { arguments, environment in
                try await AlertctlProcess.run(["--url", app.url, "rules"] + arguments, environment: environment)
            }
        }
    }

    /// Creates an alert as the producer; returns its id.
    private func create(_ app: AlertdApp, _ body: String) async throws -> String {
        let response = try await RawHTTP.exchange(RawHTTP.request(
            "POST", "/v1/alerts", headers: [("Authorization", "Bearer alertctl-rules-producer")],
            body: Array(body.utf8)), port: app.port)
        #expect(response.status == 201)
        let json = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        return try #require(json?["id"] as? String)
    }

    /// The alert as the admin reads it.
    private func alert(_ app: AlertdApp, _ id: String) async throws -> [String: Any] {
        let response = try await RawHTTP.exchange(RawHTTP.request(
            "GET", "/v1/alerts/\(id)", headers: [("Authorization", "Bearer alertctl-rules-admin-01")]), port: app.port)
        return try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    @Test("add, list, show and delete a rule; while it exists a matching alert is answered at once as rule:<name>")
    func lifecycle() async throws {
        try await withServer { app, run in
            let empty = try await run(["list"], Self.admin)
            #expect(empty.status == 0 && empty.stdout == "no rules\n", "\(empty)")

            let added = try await run(["add", "deploys", "--presenter", "ops", "--title", "Deploy *", "--button", "Yes",
                                       "--expires", "7d"], Self.admin)
            #expect(added.status == 0, "\(added)")
            #expect(added.stdout.contains("rule deploys made: presenter=ops title=\"Deploy *\""), "\(added)")

            let listed = try await run(["list"], Self.admin)
            #expect(listed.status == 0, "\(listed)")
            #expect(listed.lines.first?.hasPrefix("NAME") == true, "\(listed)")
            let row = listed.lines.first { $0.hasPrefix("deploys") } ?? ""
            #expect(row.contains("presenter=ops") && row.contains("Yes") && row.contains("root"), "\(listed)")

            let shown = try await run(["show", "deploys", "--json"], Self.admin)
            #expect(shown.status == 0, "\(shown)")
            let rule = try #require(shown.json)
            #expect(rule["button"] as? String == "Yes")
            #expect(rule["responder"] as? String == "rule:deploys")
            #expect(rule["match"] as? [String: String] == ["presenter": "ops", "title": "Deploy *"])
            #expect(rule["expiresAt"] is String && rule["expired"] as? Bool == false, "\(rule)")

            let matching = try await create(app, #"{"title":"Deploy web","presenter":"ops","buttons":["No","Yes"]}"#)
            let other = try await create(app, #"{"title":"Restart db","presenter":"ops","buttons":["No","Yes"]}"#)
            let answered = try await alert(app, matching)
            let result = answered["result"] as? [String: Any]
            #expect(answered["state"] as? String == "resolved", "\(answered)")
            #expect(result?["responder"] as? String == "rule:deploys" && result?["buttonTitle"] as? String == "Yes")
            #expect(try await alert(app, other)["state"] as? String == "pending")

            let deleted = try await run(["delete", "deploys"], Self.admin)
            #expect(deleted.status == 0 && deleted.stdout.contains("rule deploys deleted"), "\(deleted)")
            let after = try await create(app, #"{"title":"Deploy api","presenter":"ops","buttons":["No","Yes"]}"#)
            #expect(try await alert(app, after)["state"] as? String == "pending")
            let gone = try await run(["show", "deploys"], Self.admin)
            #expect(gone.status == 5 && gone.stderr.contains("deploys"), "\(gone)")
        }
    }

    @Test("a tool rule with --input answers an agent's approval whose input matches")
    func toolRule() async throws {
        try await withServer { app, run in
            let added = try await run(["add", "git-status", "--tool", "Bash", "--input", "command=git status*",
                                       "--button", "Allow"], Self.admin)
            #expect(added.status == 0, "\(added)")
            let id = try await create(app, #"{"title":"Run Bash?","buttons":["Deny","Allow"],"tool":"Bash","#
                + #""toolInput":{"command":"git status --short"}}"#)
            let result = try await alert(app, id)["result"] as? [String: Any]
            #expect(result?["responder"] as? String == "rule:git-status", "\(String(describing: result))")
        }
    }

    @Test("alertd's refusals are clear: a non-admin (403), a name taken (409), a bad rule (422), no such rule (404)")
    func refusals() async throws {
        try await withServer { _, run in
            for arguments in [["list"], ["add", "x", "--title", "y", "--button", "OK"]] {
                let forbidden = try await run(arguments, ["ALERTD_TOKEN": "alertctl-rules-alice-001"])
                #expect(forbidden.status == 4, "\(forbidden)")
                #expect(forbidden.stderr.contains("only an admin token may read or change rules"), "\(forbidden)")
            }
            #expect(try await run(["add", "once", "--title", "A", "--button", "OK"], Self.admin).status == 0)
            let taken = try await run(["add", "once", "--title", "B", "--button", "OK"], Self.admin)
            #expect(taken.status == 4 && taken.stderr.contains("delete it first, or choose another name"), "\(taken)")
            let bad = try await run(["add", "bad", "--input", "command=ls", "--button", "OK"], Self.admin)
            #expect(bad.status == 4, "\(bad)")
            #expect(bad.stderr.contains("alertd refused the rule") && bad.stderr.contains("--input: "), "\(bad)")
            let missing = try await run(["delete", "nothing"], Self.admin)
            #expect(missing.status == 5 && missing.stderr.contains("nothing"), "\(missing)")
        }
    }

    @Test("usage errors exit 2 naming what is wrong", arguments: [
        ([] as [String], "missing what to do"), (["lst"], "did you mean 'list'?"), (["show"], "missing NAME"),
        (["add", "x", "--title", "y"], "add needs --button TITLE"), (["add", "x", "--button", "OK"], "at least one of"),
        (["list", "--button", "OK"], "--button is for 'rules add' only"),
        (["add", "x", "--tag", "many", "--button", "OK"], "--tag needs a whole number"),
        (["add", "x", "--tool", "Bash", "--input", "command", "--button", "OK"], "--input needs MEMBER=GLOB"),
        (["add", "x", "--title", "y", "--button", "OK", "--expires", "2001-01-01T00:00:00Z"], "has passed already"),
        (["add", "x", "--title", "y", "--button", "OK", "--expires", "soon"], "--expires needs a positive duration"),
    ])
    func usageErrors(_ arguments: [String], _ message: String) async throws {
        let output = try await AlertctlProcess.run(["--url", "http://127.0.0.1:1", "rules"] + arguments)
        #expect(output.status == 2 && output.stderr.contains(message), "\(arguments): \(output)")
    }
}
