@testable import AlertAPI
import AlertCore
import BuildInfo
import Foundation
import JSON
import Testing

extension LiveServer {
    /// Polls the alert until its `webhook` satisfies `done` (or `timeout` seconds, stretched by `TestTime`, pass);
    /// returns every `webhook` seen, the last one last.
    func watchWebhook(_ id: String, timeout: Double = 30,
                      until done: (JSONValue) -> Bool) async throws -> [JSONValue] {
        var seen: [JSONValue] = []
        _ = try await TestTime.until(timeout, every: .milliseconds(25)) {
            let webhook = try await alert(id).json["webhook"] ?? .null
            if seen.last != webhook { seen.append(webhook) }
            return done(webhook)
        }
        return seen
    }
}

/// `callback` on create: alertd POSTs the resolved alert there, retrying with back-off, and
/// shows how delivery goes on the alert. The receivers are on loopback, so these servers allow `loopback`.
///
/// These tests never send traffic anywhere but 127.0.0.1: callbacks elsewhere are only
/// checked at create (refused, or accepted and never resolved).
@Suite("Webhooks")
struct WebhookTests {
    @Test("A receiver that fails twice then accepts: delivered on attempt 3, with the full Result and headers")
    func retriesThenDelivers() async throws {
        let receiver = try WebhookReceiver(statuses: [500, 500, 200])
        defer { receiver.stop() }
        try await LiveServer.with({ $0.webhooks = .loopback }) { server in
            let callback = receiver.url("/hooks/alertd?source=test")
            let created = try await server.createAlert("""
                {"title":"Login","buttons":["Cancel","Log in"],"callback":\(jsonString(callback)),
                 "fields":[{"placeholder":"User"},{"placeholder":"Password","secure":true}]}
                """)
            let id = try #require(created["id"]?.stringValue)
            #expect(created["webhook"] == .object(JSONObject([
                ("url", .string(callback)), ("state", .string("pending")), ("attempts", .integer(0)),
                ("lastError", .null), ("lastAttemptAt", .null),
            ])), "\(created["webhook"] ?? .null)")
            #expect(created.keys.last == "webhook")
            #expect(receiver.requests.isEmpty, "nothing is sent before the alert resolves")

            let answer = try await server.answer(id, #"{"buttonIndex":1,"values":["alice","s3cret"]}"#)
            #expect(answer.status == 200)
            let seen = try await server.watchWebhook(id) { $0["state"] == .string("delivered") }
            let final = try #require(seen.last)
            #expect(final["state"] == .string("delivered"), "\(seen)")
            #expect(final["attempts"]?.int64Value == 3)
            #expect(final["lastError"] == .null)
            #expect(isRFC3339(final["lastAttemptAt"]?.stringValue))
            #expect(final["url"] == .string(callback))
            // On the way: pending, with the failure recorded.
            for webhook in seen.dropLast() where (webhook["attempts"]?.int64Value ?? 0) > 0 {
                #expect(webhook["state"] == .string("pending"), "\(webhook)")
                #expect(webhook["lastError"] == .string("receiver answered 5xx"), "the status class: \(webhook)")
            }

            let requests = try await receiver.waitForRequests(3)
            try #require(requests.count == 3)
            for (number, request) in requests.enumerated() {
                #expect(request.method == "POST")
                #expect(request.target == "/hooks/alertd?source=test")
                #expect(request.headers["content-type"]?.hasPrefix("application/json") == true)
                #expect(request.headers["x-alertd-alert"] == id)
                #expect(request.headers["x-alertd-delivery-attempt"] == String(number + 1))
                #expect(request.headers["user-agent"] == "alertd/\(BuildInfo.version)", "the version, not 'unknown'")
                let alert = request.json
                #expect(alert["id"] == .string(id))
                #expect(alert["state"] == .string("resolved"))
                // The producer's own callback gets the whole Result, secure values included.
                #expect(alert["result"] == answer.json, "\(request.text)")
                #expect(alert["result"]?["values"] == .array([.string("alice"), .string("s3cret")]))
            }
            // Back-off: 0.5 s, then 1 s (doubling); a loaded machine may only stretch them.
            let gaps = zip(requests.dropFirst(), requests).map { ($0.receivedAt - $1.receivedAt).seconds }
            #expect(gaps[0] >= 0.45 && gaps[0] < 0.5 + TestTime.bound(10), "first pause \(gaps[0]) s")
            #expect(gaps[1] >= 0.95 && gaps[1] < 1 + TestTime.bound(10), "second pause \(gaps[1]) s")
            // Not ordering, a window: a delivery wrongly sent after the accepted one arrives within it.
            try await Task.sleep(for: .milliseconds(300))
            #expect(receiver.requests.count == 3, "no delivery after the accepted one")

            let metrics = try await server.metrics()
            #expect(metrics[#"alertd_webhook_deliveries_total{outcome="retry"}"#] == 2)
            #expect(metrics[#"alertd_webhook_deliveries_total{outcome="delivered"}"#] == 1)
            #expect(metrics[#"alertd_webhook_deliveries_total{outcome="failed"}"#] == 0)
        }
    }

    @Test("Dismissals and expiries are delivered too, once")
    func dismissedAndExpired() async throws {
        let receiver = try WebhookReceiver(statuses: [204])
        defer { receiver.stop() }
        try await LiveServer.with({ $0.webhooks = .loopback }) { server in
            let dismissed = try await server.create(
                #"{"title":"d","buttons":["Cancel","OK"],"callback":\#(jsonString(receiver.url("/d")))}"#)
            let expired = try await server.create(
                #"{"title":"e","timeout":0.2,"callback":\#(jsonString(receiver.url("/e")))}"#)
            let withdrawal = try await server.delete("/v1/alerts/\(dismissed)")
            let requests = try await receiver.waitForRequests(2)
            try #require(requests.count == 2)
            let byPath = Dictionary(uniqueKeysWithValues: requests.map { ($0.target, $0.json) })
            #expect(byPath["/d"]?["result"] == withdrawal.json)
            #expect(byPath["/e"]?["id"] == .string(expired))
            #expect(byPath["/e"]?["result"]?["resolution"] == .string("expired"))
            for id in [dismissed, expired] {
                let seen = try await server.watchWebhook(id) { $0["state"] == .string("delivered") }
                #expect(seen.last?["attempts"]?.int64Value == 1, "\(seen)")
            }
            try await Task.sleep(for: .milliseconds(300))  // not ordering, a window for a second delivery to show
            #expect(receiver.requests.count == 2)
        }
    }

    @Test("An unreachable receiver: the attempt is recorded as pending with its error")
    func unreachable() async throws {
        // A port that was just free: nothing listens there.
        let closed = try WebhookReceiver()
        let port = closed.port
        closed.stop()  // shut down for reading: connecting is refused from now on
        try await LiveServer.with({ $0.webhooks = .loopback }) { server in
            let id = try await server.create(#"{"title":"x","callback":"http://127.0.0.1:\#(port)/gone"}"#)
            _ = try await server.answer(id, #"{"buttonIndex":0}"#)
            let seen = try await server.watchWebhook(id) { ($0["attempts"]?.int64Value ?? 0) >= 1 }
            let webhook = try #require(seen.last)
            #expect(webhook["attempts"]?.int64Value == 1 || webhook["attempts"]?.int64Value == 2)
            #expect(webhook["state"] == .string("pending"), "retrying: \(webhook)")
            #expect(webhook["lastError"]?.stringValue?.isEmpty == false, "\(webhook)")
            #expect(isRFC3339(webhook["lastAttemptAt"]?.stringValue))
        }
    }

    /// A delivery left retrying, or started after shutdown, kept its body and the store until the process exited:
    /// LeakSanitizer reported it at the end of the test process (`make asan`).
    @Test("Shutdown ends a delivery still retrying, and no delivery starts after it")
    func shutdownStopsDeliveries() async throws {
        let receiver = try WebhookReceiver(statuses: [500])
        defer { receiver.stop() }
        try await LiveServer.with({ $0.webhooks = .loopback }) { server in
            let callback = jsonString(receiver.url())
            let retrying = try await server.create(#"{"title":"retrying","callback":\#(callback)}"#)
            let later = try await server.create(#"{"title":"later","callback":\#(callback)}"#)
            _ = try await server.answer(retrying, #"{"buttonIndex":0}"#)
            _ = try await server.watchWebhook(retrying) { ($0["attempts"]?.int64Value ?? 0) >= 1 }
            await server.app.shutdown()
            // Windows, not ordering: an attempt already on the wire arrives; then a retry, were one left running.
            try await Task.sleep(for: .milliseconds(200))
            let sent = receiver.requests.count
            #expect(sent >= 1)
            // Resolved after shutdown, through the store (as an expiry would be): nothing is sent for it.
            _ = try await server.app.store.answer(AlertID(rawValue: later), with: AnswerDraft(choice: .index(0)))
            // Still retrying, the first alert would be sent again 0.5 s after its last attempt, then 1 s later.
            try await Task.sleep(for: .milliseconds(1600))
            #expect(receiver.requests.count == sent, "\(receiver.requests.map(\.text))")
        }
    }

    @Test("A redirect is not followed: the allowed destinations cannot be sidestepped", arguments: [302, 307, 308])
    func redirectNotFollowed(status: Int) async throws {
        // Both on loopback; only 127.0.0.1 is allowed, so the redirect target 127.0.0.2 is not.
        let forbidden = try WebhookReceiver(statuses: [200], host: "127.0.0.2")
        defer { forbidden.stop() }
        let redirector = try WebhookReceiver(statuses: [status, 200],
                                             responseHeaders: [("Location", forbidden.url("/stolen"))])
        defer { redirector.stop() }
        let policy = try #require(WebhookPolicy(list: "127.0.0.1"))
        try await LiveServer.with({ $0.webhooks = policy }) { server in
            let refused = try await server.post("/v1/alerts", #"{"title":"x","callback":\#(jsonString(forbidden.url()))}"#)
            expectProblem(refused, 422, pointer: "/callback")
            let id = try await server.create(#"{"title":"x","callback":\#(jsonString(redirector.url()))}"#)
            _ = try await server.answer(id, #"{"buttonIndex":0}"#)
            let seen = try await server.watchWebhook(id) { $0["state"] == .string("delivered") }
            #expect(forbidden.requests.isEmpty, "the \(status) redirect was followed to a destination that is not allowed")
            // The 3xx is a failed attempt; the retry to the callback itself is delivered.
            #expect(seen.last?["attempts"]?.int64Value == 2, "\(seen)")
            #expect(redirector.requests.count == 2)
        }
    }

    @Test("Without a callback, webhook is null")
    func noCallback() async throws {
        try await LiveServer.with { server in
            let alert = try await server.createAlert(#"{"title":"plain"}"#)
            #expect(alert["webhook"] == .null)
            #expect(alert.keys.contains("webhook"))
        }
    }

    @Test("callback must be a string", arguments: ["42", "true", "[\"http://127.0.0.1/\"]", "{}"])
    func callbackType(value: String) async throws {
        try await LiveServer.with { server in
            let response = try await server.post("/v1/alerts", #"{"title":"x","callback":\#(value)}"#)
            expectProblem(response, 422, pointer: "/callback", type: "urn:alertd:problem:validation-failed")
        }
    }

    @Test("callback: null counts as absent")
    func callbackNull() async throws {
        try await LiveServer.with { server in
            let alert = try await server.createAlert(#"{"title":"x","callback":null}"#)
            #expect(alert["webhook"] == .null)
        }
    }

    @Test("The other new flags: --event-history, --event-keepalive, --access-log")
    func otherFlags() throws {
        guard case .run(let configuration) = try AlertdConfiguration.command(
            arguments: ["--event-history", "50", "--event-keepalive=2", "--access-log", "off"], environment: [:])
        else {
            Issue.record("not a run command")
            return
        }
        #expect(configuration.store.eventHistory == 50)
        #expect(configuration.eventKeepAlive == .seconds(2))
        #expect(configuration.logRequests == false)
        guard case .run(let defaults) = try AlertdConfiguration.command(arguments: [], environment: [:]) else { return }
        #expect(defaults.store.eventHistory == 10_000)
        #expect(defaults.eventKeepAlive == .seconds(15))
        #expect(defaults.logRequests)
        guard case .run(let fromEnvironment) = try AlertdConfiguration.command(
            arguments: [], environment: ["ALERTD_EVENT_HISTORY": "7", "ALERTD_EVENT_KEEPALIVE": "3",
                                         "ALERTD_ACCESS_LOG": "off"])
        else { return }
        #expect(fromEnvironment.store.eventHistory == 7)
        #expect(fromEnvironment.eventKeepAlive == .seconds(3))
        #expect(!fromEnvironment.logRequests)
        for bad in [["--event-history", "0"], ["--event-keepalive", "0"], ["--access-log", "yes"], ["--access-log", "ON"]] {
            #expect(throws: ConfigurationError.self, "\(bad)") {
                _ = try AlertdConfiguration.command(arguments: bad, environment: [:])
            }
        }
        for flag in ["--event-history", "--event-keepalive", "--access-log"] {
            #expect(AlertdConfiguration.usage.contains(flag))
        }
    }
}
