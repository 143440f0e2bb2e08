import Foundation
import HTTPTestSupport
import JSON
import Testing

/// Single-alert links in a cluster: the key that signs them and the record of those used are PostgreSQL's, so a link
/// opens on any instance and works once across all of them and their restarts.
@Suite("Cluster: single-alert links", .spawnsProcesses, .serialized)
struct ClusterLinksTests {
    static let bob = "bob-responder-token-0002"
    static let ci = "ci-producer-token-0001"
    static let producer = [("Authorization", "Bearer \(ci)")]

    static func tokensFile() throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("alertd-cluster-links-\(UUID())")
        try "bob:responder:\(bob)\nci:producer:\(ci)\n".write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    /// Creates an alert on `node`; returns its id.
    static func create(_ title: String, on node: ClusterNode) async throws -> String {
        let created = try await node.request("POST", "/v1/alerts",
                                             json: #"{"title":"\#(title)","buttons":["No","Yes"]}"#, headers: producer)
        try #require(created.status == 201, "\(created)")
        return try created.json().string("id")
    }

    /// A notification's links by alert title: the view link's and each answer link's target (path and query).
    static func links(_ receiver: WebhookReceiver) -> [String: (view: String, answers: [String])] {
        func target(_ url: String) -> String { url.range(of: "/app/").map { String(url[$0.lowerBound...]) } ?? url }
        var links: [String: (view: String, answers: [String])] = [:]
        for request in receiver.requests {
            let body = request.json.objectValue
            let answers = body?["answers"]?.arrayValue?.compactMap { $0.objectValue?["url"]?.stringValue } ?? []
            links[body?["alert"]?.objectValue?["title"]?.stringValue ?? ""] = (
                target(body?["link"]?.stringValue ?? ""), answers.map(target))
        }
        return links
    }

    /// Opens `link` on `node` as a phone does: its page, then its one button (a same-origin form post with the page's
    /// CSRF token and form cookie). Returns the button's answer and the session cookie it set.
    static func use(_ link: String, on node: ClusterNode) async throws -> (WireResponse, String?) {
        let page = try await node.request("GET", link)
        let formCookie = page.headers["set-cookie"]?.split(separator: ";").first.map(String.init)
        let csrf = page.text.range(of: #"name="csrf" value=""#).map {
            String(page.text[$0.upperBound...].prefix { $0 != "\"" })
        } ?? ""
        let token = String(link.split(separator: "l=").last ?? "")
        var headers = [("Origin", "http://127.0.0.1"), ("Content-Type", "application/x-www-form-urlencoded")]
        if let formCookie { headers.append(("Cookie", formCookie)) }
        let used = try await RawHTTP.exchange(
            RawHTTP.request("POST", "/app/link", headers: headers, body: Array("csrf=\(csrf)&l=\(token)".utf8)),
            port: node.port, timeout: TestTime.bound(30))
        let session = used.headers["set-cookie"]?.split(separator: ";").first.map(String.init)
        return (used, session)
    }

    @Test("A link a cluster's notification carries opens on another instance; used on one it is refused on every other, also after all restart")
    func onceAcrossInstances() async throws {
        let file = try Self.tokensFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let arguments = ["--tokens-file", file.path, "--notify-webhook", receiver.url(), "--notify-responder", "bob"]
        try await withCluster(instances: 2, arguments: arguments) { postgres, nodes in
            let (a, b) = (nodes[0], nodes[1])
            let opened = try await Self.create("Opened on B", on: a)
            let used = try await Self.create("Used on A", on: a)
            _ = try await Self.create("Answered from B", on: a)
            _ = try await Self.create("After the restart", on: a)
            try await eventually("A notified every create") { receiver.requests.count >= 4 }
            let links = Self.links(receiver)
            for (title, link) in links {
                #expect(link.view.hasPrefix("/app/link?l="), "\(title): a signed link, not the sign-in page")
                #expect(link.answers.count == 2, "\(title): one answer link per button")
            }

            // Signed by A, opened on B: the instances share the key, and B catches up with A's alert.
            let (onB, session) = try await Self.use(try #require(links["Opened on B"]).view, on: b)
            #expect(onB.status == 303 && onB.headers["location"] == "/app/alerts/\(opened)", "\(onB)")
            let page = try await b.request("GET", "/app/alerts/\(opened)", headers: [("Cookie", session ?? "")])
            #expect(page.status == 200 && page.text.contains("Opened on B"), "\(page)")

            // Used on A: refused on B, and a second time on A.
            let usedLink = try #require(links["Used on A"]).view
            let (onA, _) = try await Self.use(usedLink, on: a)
            #expect(onA.status == 303 && onA.headers["location"] == "/app/alerts/\(used)", "\(onA)")
            for node in [b, a] {
                let (again, _) = try await Self.use(usedLink, on: node)
                #expect(again.status == 403 && again.text.contains("used already"), "\(again)")
            }

            // An answer link: answered from B, refused on A.
            let yes = try #require(links["Answered from B"]?.answers.last)
            let answered = try await b.request("POST", yes, json: "{}")
            #expect(answered.status == 200 && (try? answered.json().string("responder")) == "bob", "\(answered)")
            let twice = try await a.request("POST", yes, json: "{}")
            #expect(twice.status == 403 && twice.headers["content-type"] == "application/problem+json", "\(twice)")
            #expect(try await postgres.sql("SELECT count(*) FROM alertd_used_links") == "3")

            // Every instance restarted: the record and the key are the database's.
            for node in nodes { await node.stop() }
            let restarted = [try await ClusterNode(database: postgres.url, arguments: arguments),
                             try await ClusterNode(database: postgres.url, arguments: arguments)]
            for node in restarted {
                for link in [try #require(links["Opened on B"]).view, usedLink] {
                    let (refused, _) = try await Self.use(link, on: node)
                    #expect(refused.status == 403 && refused.text.contains("used already"), "\(refused)")
                }
                let again = try await node.request("POST", yes, json: "{}")
                #expect(again.status == 403, "\(again)")
            }
            let (fresh, _) = try await Self.use(try #require(links["After the restart"]).view, on: restarted[1])
            #expect(fresh.status == 303, "a link signed before the restart still opens once: \(fresh)")
            let (reused, _) = try await Self.use(try #require(links["After the restart"]).view, on: restarted[0])
            #expect(reused.status == 403, "\(reused)")
            for node in restarted { await node.stop() }
        }
    }

    @Test("Instances that start together on a new database make one link key between them, and share it")
    func oneKeyWhenStartedTogether() async throws {
        let file = try Self.tokensFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let arguments = ["--tokens-file", file.path, "--notify-webhook", receiver.url(), "--notify-responder", "bob"]
        try await withCluster(instances: 0) { postgres, _ in
            async let a = ClusterNode(database: postgres.url, arguments: arguments)
            async let b = ClusterNode(database: postgres.url, arguments: arguments)
            async let c = ClusterNode(database: postgres.url, arguments: arguments)
            let nodes = try await [a, b, c]
            #expect(try await postgres.sql("SELECT count(*) FROM alertd_page_key") == "1")
            for (index, node) in nodes.enumerated() {
                _ = try await Self.create("Made on \(index)", on: node)
            }
            try await eventually("every instance notified its create") { receiver.requests.count >= 3 }
            let links = Self.links(receiver)
            for index in nodes.indices {
                let (opened, _) = try await Self.use(try #require(links["Made on \(index)"]).view,
                                                     on: nodes[(index + 1) % nodes.count])
                #expect(opened.status == 303, "signed on \(index), opened on the next: \(opened)")
            }
            for node in nodes { await node.stop() }
        }
    }

    @Test("Used links are pruned once expired; a link whose use cannot be recorded is refused with 503, not honoured")
    func prunedAndUnrecorded() async throws {
        let file = try Self.tokensFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let arguments = ["--tokens-file", file.path, "--notify-webhook", receiver.url(), "--notify-responder", "bob"]
        try await withCluster(instances: 1, arguments: arguments) { postgres, nodes in
            try await postgres.sql("INSERT INTO alertd_used_links VALUES ('gone', 1), ('kept', 99999999999)")
            await nodes[0].stop()
            let node = try await ClusterNode(database: postgres.url, arguments: arguments)
            #expect(try await postgres.sql("SELECT string_agg(nonce, ',') FROM alertd_used_links") == "kept")
            _ = try await Self.create("Unrecorded", on: node)
            try await eventually("notified") { !receiver.requests.isEmpty }
            let link = try #require(Self.links(receiver)["Unrecorded"]).view
            try await postgres.sql("ALTER TABLE alertd_used_links RENAME TO alertd_used_links_away")
            let (refused, _) = try await Self.use(link, on: node)
            #expect(refused.status == 503 && refused.text.contains("could not record"), "\(refused)")
            try await postgres.sql("ALTER TABLE alertd_used_links_away RENAME TO alertd_used_links")
            let (opened, _) = try await Self.use(link, on: node)
            #expect(opened.status == 303, "tried again once it can be recorded: \(opened)")
            await node.stop()
        }
    }
}

/// Push notifications from a cluster: the outbox in PostgreSQL, so that each target gets every new alert at least
/// once although the instance that took the create ends while it is still retrying.
@Suite("Cluster: notifications", .spawnsProcesses, .serialized)
struct ClusterNotifyTests {
    @Test("An instance killed while its notification is retried leaves it to another, which sends it once the lease passes; a sent one leaves no row")
    func atLeastOnce() async throws {
        // Down at first: the creating instance is still retrying when it is killed.
        let receiver = try WebhookReceiver(statuses: [503, 503, 503, 503, 503, 503, 200])
        defer { receiver.stop() }
        try await withCluster(instances: 2, arguments: ["--notify-webhook", receiver.url()]) { postgres, nodes in
            let id = try await nodes[0].create("Across an instance's end")
            #expect(try await postgres.sql("SELECT count(*) FROM alertd_notify_outbox") == "1",
                    "the row is the create's, committed with it")
            try await eventually("the first attempt") { !receiver.requests.isEmpty }
            await nodes[0].kill()
            let before = receiver.requests.count
            #expect(try await postgres.sql("SELECT count(*) FROM alertd_notify_outbox WHERE alert_id = '\(id)'") == "1")
            // The lease (5 minutes from the create) passes.
            try await postgres.sql("UPDATE alertd_notify_outbox SET lease_until = 0")
            try await eventually("the other instance sends it until the receiver takes it (its 7th)", within: 60) {
                receiver.requests.count >= 7
            }
            #expect(receiver.requests.count > before)
            #expect(receiver.requests.allSatisfy { $0.json.objectValue?["alert"]?.objectValue?["id"]?.stringValue == id })
            try await eventually("and its row goes once sent", within: 30) {
                try await postgres.sql("SELECT count(*) FROM alertd_notify_outbox") == "0"
            }
            // A notification the creating instance sent leaves no row either.
            _ = try await nodes[1].create("Sent at once")
            try await eventually("notified") { receiver.requests.count >= 8 }
            try await eventually("its row goes", within: 30) {
                try await postgres.sql("SELECT count(*) FROM alertd_notify_outbox") == "0"
            }
        }
    }
}
