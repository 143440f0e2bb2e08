import Foundation
import HTTPTestSupport
import JSON
import Testing

/// Who may answer, across instances: the policy is stored with the alert in PostgreSQL, so every instance holds
/// every token to it, including one that had not seen the alert yet.
@Suite("Cluster: answer policies", .spawnsProcesses, .serialized)
struct ClusterPolicyTests {
    static let ci = "ci-producer-token-0001"
    static let alice = "alice-responder-token-03"
    static let bob = "bob-responder-token-0005"

    /// ci (producer), alice and bob (responders; bob in the groups ops and oncall).
    static func tokensFile() throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("alertd-cluster-tokens-\(UUID())")
        try "ci:producer:\(ci)\nalice:responder:\(alice)\nbob:responder:\(bob):ops oncall\n"
            .write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    @Test("A policy made on A holds on B and C: a refused token gets 403 at once, the named one answers elsewhere")
    func policyAcrossInstances() async throws {
        let file = try Self.tokensFile()
        defer { try? FileManager.default.removeItem(at: file) }
        try await withCluster(arguments: ["--tokens-file", file.path]) { _, nodes in
            let (a, b, c) = (nodes[0], nodes[1], nodes[2])
            let created = try await a.request("POST", "/v1/alerts", json: #"{"message":"Deploy?","responders":["alice"]}"#,
                                              headers: [("Authorization", "Bearer \(Self.ci)")])
            try #require(created.status == 201, "\(created)")
            let id = try created.json().string("id")
            // At once on B, which may not have seen the create yet: it catches up rather than answering 404.
            let refused = try await b.request("POST", "/v1/alerts/\(id)/response", json: #"{"buttonIndex":0}"#,
                                              headers: [("Authorization", "Bearer \(Self.bob)")])
            #expect(refused.status == 403, "\(refused)")
            #expect(try refused.json()["type"]?.stringValue == "urn:alertd:problem:not-a-responder")
            let answered = try await c.request("POST", "/v1/alerts/\(id)/response", json: #"{"buttonIndex":0}"#,
                                               headers: [("Authorization", "Bearer \(Self.alice)")])
            #expect(answered.status == 200, "\(answered)")
            // B shows the answer once C's event reached it (its NOTIFY, within about a second at worst).
            let read = { try await b.request("GET", "/v1/alerts/\(id)", headers: [("Authorization", "Bearer \(Self.bob)")]).json() }
            try await eventually("B shows alice's answer") { try await read()["result"]?.objectValue != nil }
            let alert = try await read()
            #expect(alert["responders"] == .array([.string("alice")]))
            #expect(alert["result"]?.objectValue?["responder"] == .string("alice"))
        }
    }

    @Test("Escalation across instances: each step is taken once however many instances time it, widens who may answer everywhere, and comes before the expiry")
    func escalationAcrossInstances() async throws {
        let file = try Self.tokensFile()
        defer { try? FileManager.default.removeItem(at: file) }
        try await withCluster(arguments: ["--tokens-file", file.path]) { _, nodes in
            let (a, b, c) = (nodes[0], nodes[1], nodes[2])
            let producer = [("Authorization", "Bearer \(Self.ci)")]
            let moving = try await a.request("POST", "/v1/alerts", json: #"""
                {"title":"Restart db?","buttons":["No","Yes"],"presenter":"team","responders":["alice"],
                 "escalation":[{"after":1,"presenter":"oncall","groups":["oncall"]}],"timeout":60}
                """#, headers: producer)
            try #require(moving.status == 201, "\(moving)")
            let id = try moving.json().string("id")
            let chained = try await b.request("POST", "/v1/alerts", json: #"""
                {"title":"Disk?","presenter":"team","escalation":[{"after":0.5,"presenter":"oncall"},
                 {"after":1,"presenter":"managers"}],"timeout":1.5}
                """#, headers: producer)
            try #require(chained.status == 201, "\(chained)")
            let chainedID = try chained.json().string("id")
            // Before its step only alice may answer (an alert whose step is far off, so that a slow machine cannot
            // pass it before the answer).
            let later = try await a.request("POST", "/v1/alerts", json: #"""
                {"title":"Later?","presenter":"team","responders":["alice"],
                 "escalation":[{"after":600,"presenter":"oncall","groups":["oncall"]}]}
                """#, headers: producer)
            let early = try await b.request("POST", "/v1/alerts/\(try later.json().string("id"))/response",
                                            json: #"{"buttonIndex":0}"#, headers: [("Authorization", "Bearer \(Self.bob)")])
            #expect(early.status == 403, "\(early)")
            for node in nodes {
                let read = { try await node.request("GET", "/v1/alerts/\(id)", headers: producer).json() }
                try await eventually("every instance shows the step") { try await read()["presenter"] == .string("oncall") }
                let escalated = try await read()["escalated"]?.arrayValue ?? []
                #expect(escalated.count == 1, "\(escalated)")
                #expect(escalated.first?.objectValue?["from"] == .string("team"), "\(escalated)")
            }
            let answered = try await c.request("POST", "/v1/alerts/\(id)/response", json: #"{"buttonIndex":1}"#,
                                               headers: [("Authorization", "Bearer \(Self.bob)")])
            #expect(answered.status == 200, "\(answered)")
            #expect(try answered.json()["responder"] == .string("bob"), "\(answered)")
            for node in nodes {
                let events = {
                    try await node.request("GET", "/v1/events?since=0&wait=0", headers: producer).jsonArray()
                        .compactMap { $0.objectValue }
                }
                try await eventually("every instance has both alerts' last events") {
                    try await events().filter { $0["type"]?.stringValue == "answered" || $0["type"]?.stringValue == "expired" }.count == 2
                }
                let kinds = { (alert: String) in
                    try await events().filter { $0["alert"]?.objectValue?["id"]?.stringValue == alert }
                        .compactMap { $0["type"]?.stringValue }
                }
                #expect(try await kinds(id) == ["created", "escalated", "answered"])
                #expect(try await kinds(chainedID) == ["created", "escalated", "escalated", "expired"])
                let expired = try await node.request("GET", "/v1/alerts/\(chainedID)", headers: producer).json()
                #expect(expired["presenter"] == .string("managers"), "\(expired)")
                #expect(expired["escalated"]?.arrayValue?.count == 2, "\(expired)")
                let answer = try await node.request("GET", "/v1/alerts/\(id)", headers: producer).json()
                #expect(answer["result"]?.objectValue?["responder"] == .string("bob"), "\(answer)")
                #expect(answer["escalated"]?.arrayValue?.count == 1, "\(answer)")
            }
        }
    }

    @Test("A step whose time came while every instance was down is taken once, by the instances that start next")
    func escalationAfterRestart() async throws {
        try await withCluster(instances: 1) { postgres, nodes in
            let created = try await nodes[0].request("POST", "/v1/alerts", json: #"""
                {"title":"Disk?","presenter":"team","escalation":[{"after":1,"presenter":"oncall"}],"timeout":60}
                """#)
            try #require(created.status == 201, "\(created)")
            let id = try created.json().string("id")
            await nodes[0].stop()
            let due = Date().addingTimeInterval(1)
            try await eventually("the step's time passed while no instance ran") { Date() > due }
            let started = try await withThrowingTaskGroup(of: ClusterNode.self) { group in
                for _ in 0..<2 { group.addTask { try await ClusterNode(database: postgres.url) } }
                return try await group.reduce(into: [ClusterNode]()) { $0.append($1) }
            }
            for node in started {
                let read = { try await node.request("GET", "/v1/alerts/\(id)").json() }
                try await eventually("the new instance shows the step") { try await read()["presenter"] == .string("oncall") }
                #expect(try await read()["escalated"]?.arrayValue?.count == 1)
                let kinds = try await node.request("GET", "/v1/events?since=0&wait=0").jsonArray()
                    .compactMap { $0.objectValue?["type"]?.stringValue }
                #expect(kinds == ["created", "escalated"], "\(kinds)")
            }
            for node in started { await node.stop() }
        }
    }

    /// voter-00 … voter-23, responders, for the quorum tests.
    static let voters = (0..<24).map { String(format: "voter-%02d", $0) }
    static func voterToken(_ voter: String) -> String { "\(voter)-responder-token-0000" }

    static func voterTokens() throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("alertd-cluster-voters-\(UUID())")
        try (["ci:producer:\(ci)"] + voters.map { "\($0):responder:\(voterToken($0))" }).joined(separator: "\n")
            .write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    static func vote(_ node: ClusterNode, _ id: String, _ voter: String, button: Int) async throws -> WireResponse {
        try await node.request("POST", "/v1/alerts/\(id)/response", json: #"{"buttonIndex":\#(button)}"#,
                               headers: [("Authorization", "Bearer \(voterToken(voter))")])
    }

    @Test("Quorum 2 across instances: a vote on A is shown by B, the second vote on B resolves it with both, a double vote on C is 409, a veto on C resolves at once")
    func quorumAcrossInstances() async throws {
        let file = try Self.voterTokens()
        defer { try? FileManager.default.removeItem(at: file) }
        try await withCluster(arguments: ["--tokens-file", file.path]) { _, nodes in
            let (a, b, c) = (nodes[0], nodes[1], nodes[2])
            let producer = [("Authorization", "Bearer \(Self.ci)")]
            let body = #"{"title":"Deploy?","buttons":["No","Yes"],"quorum":2}"#
            let created = try await a.request("POST", "/v1/alerts", json: body, headers: producer)
            try #require(created.status == 201, "\(created)")
            let id = try created.json().string("id")
            let first = try await Self.vote(a, id, "voter-00", button: 1)
            #expect(first.status == 202, "\(first)")
            try await eventually("B shows the vote made on A") {
                try await b.request("GET", "/v1/alerts/\(id)", headers: producer).json()["votes"]?.arrayValue?.count == 1
            }
            let double = try await Self.vote(c, id, "voter-00", button: 1)
            #expect(double.status == 409, "\(double)")
            #expect(try double.json()["type"]?.stringValue == "urn:alertd:problem:already-voted", "\(double)")
            let second = try await Self.vote(b, id, "voter-01", button: 1)
            #expect(second.status == 200, "\(second)")
            let read = { try await c.request("GET", "/v1/alerts/\(id)", headers: producer).json() }
            try await eventually("C shows the resolution made on B") { try await read()["result"]?.objectValue != nil }
            let result = try await read()
            let voters = (result["result"]?.objectValue?["votes"]?.arrayValue ?? []).compactMap {
                $0.objectValue?["responder"]?.stringValue
            }
            #expect(voters == ["voter-00", "voter-01"], "\(result)")
            #expect(result["result"]?.objectValue?["responder"] == .string("voter-01"), "\(result)")
            let kinds = {
                try await a.request("GET", "/v1/events?since=0&wait=0", headers: producer).jsonArray()
                    .compactMap { $0.objectValue?["type"]?.stringValue }
            }
            try await eventually("A has B's answer event") { try await kinds().count >= 3 }
            #expect(try await kinds() == ["created", "voted", "answered"])

            let vetoed = try await a.request("POST", "/v1/alerts", json: body, headers: producer)
            let vetoedID = try vetoed.json().string("id")
            #expect(try await Self.vote(b, vetoedID, "voter-02", button: 1).status == 202)
            let veto = try await Self.vote(c, vetoedID, "voter-03", button: 0)
            #expect(veto.status == 200, "\(veto)")
            #expect(try veto.json()["ok"] == .bool(false), "\(veto)")

            // A dismissal on C right after a vote on B keeps that vote, whether or not C had seen it.
            let dismissed = try await a.request("POST", "/v1/alerts", json: body, headers: producer)
            let dismissedID = try dismissed.json().string("id")
            #expect(try await Self.vote(b, dismissedID, "voter-04", button: 1).status == 202)
            let withdrawn = try await c.request("DELETE", "/v1/alerts/\(dismissedID)", headers: producer)
            #expect(withdrawn.status == 200, "\(withdrawn)")
            let kept = (try withdrawn.json()["votes"]?.arrayValue ?? []).compactMap {
                $0.objectValue?["responder"]?.stringValue
            }
            #expect(kept == ["voter-04"], "\(withdrawn)")
        }
    }

    @Test("24 voters racing over three instances on quorum 3: exactly one resolution with exactly 3 votes")
    func racingVotersAcrossInstances() async throws {
        let file = try Self.voterTokens()
        defer { try? FileManager.default.removeItem(at: file) }
        try await withCluster(arguments: ["--tokens-file", file.path]) { _, nodes in
            let producer = [("Authorization", "Bearer \(Self.ci)")]
            let created = try await nodes[0].request(
                "POST", "/v1/alerts", json: #"{"title":"Ship?","buttons":["No","Yes"],"quorum":3}"#, headers: producer)
            try #require(created.status == 201, "\(created)")
            let id = try created.json().string("id")
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for (number, voter) in Self.voters.enumerated() {
                    group.addTask { try await Self.vote(nodes[number % 3], id, voter, button: 1).status }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 200 }.count == 1, "\(statuses.sorted())")
            #expect(statuses.filter { $0 == 202 }.count == 2, "\(statuses.sorted())")
            #expect(statuses.filter { $0 == 409 }.count == 21, "\(statuses.sorted())")
            for node in nodes {
                let read = { try await node.request("GET", "/v1/alerts/\(id)", headers: producer).json() }
                try await eventually("every instance shows the resolution") { try await read()["result"]?.objectValue != nil }
                let alert = try await read()
                let votes = alert["result"]?.objectValue?["votes"]?.arrayValue ?? []
                #expect(votes.count == 3, "\(alert)")
                #expect(Set(votes.compactMap { $0.objectValue?["responder"]?.stringValue }).count == 3, "\(alert)")
            }
        }
    }
}

/// Rules that answer, across instances: PostgreSQL keeps them, and each instance's writer applies the rules it finds
/// in the transaction that creates an alert or adds a rule, so a rule made on one instance answers on every other at
/// once.
@Suite("Cluster: rules that answer", .spawnsProcesses, .serialized)
struct ClusterRulesTests {
    static let ci = "ci-producer-token-0001"
    static let admin = "ops-admin-token-000007"
    static let producer = [("Authorization", "Bearer \(ci)")]
    static let operator_ = [("Authorization", "Bearer \(admin)")]

    static func tokensFile() throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("alertd-cluster-rules-\(UUID())")
        try "ci:producer:\(ci)\nops:admin:\(admin)\n".write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    static func create(_ title: String, on node: ClusterNode) async throws -> JSONObject {
        let created = try await node.request(
            "POST", "/v1/alerts", json: #"{"title":"\#(title)","message":"Go?","buttons":["Cancel","Deploy"]}"#,
            headers: producer)
        try #require(created.status == 201, "\(created)")
        return try created.json()
    }

    @Test("A rule made on A answers B's pending alert in the same request, C's new alerts at once, is listed by all; removed on B, it answers nothing")
    func ruleAcrossInstances() async throws {
        let file = try Self.tokensFile()
        defer { try? FileManager.default.removeItem(at: file) }
        try await withCluster(arguments: ["--tokens-file", file.path]) { _, nodes in
            let (a, b, c) = (nodes[0], nodes[1], nodes[2])
            let waiting = try await Self.create("deploy web", on: b).string("id")
            let other = try await Self.create("restart db", on: b).string("id")
            let made = try await a.request(
                "POST", "/v1/rules", json: #"{"name":"deploys","match":{"title":"deploy *"},"button":"Deploy"}"#,
                headers: Self.operator_)
            #expect(made.status == 201, "\(made)")
            #expect(try made.json()["answered"] == .array([.string(waiting)]), "\(made)")
            // Every instance shows the answer and lists the rule at once, without waiting for a notification.
            for node in nodes {
                let read = { try await node.request("GET", "/v1/alerts/\(waiting)", headers: Self.producer).json() }
                try await eventually("every instance shows the rule's answer") { try await read()["result"]?.objectValue != nil }
                let alert = try await read()
                #expect(alert["result"]?.objectValue?["responder"] == .string("rule:deploys"), "\(alert)")
                let listed = try await node.request("GET", "/v1/rules", headers: Self.operator_).json()
                let names = (listed["rules"]?.arrayValue ?? []).compactMap { $0.objectValue?["name"]?.stringValue }
                #expect(names == ["deploys"], "\(listed)")
            }
            let untouched = try await c.request("GET", "/v1/alerts/\(other)", headers: Self.producer).json()
            #expect(untouched["result"] == .null, "\(untouched)")
            // A new matching alert on C comes back answered by the rule in its create response.
            let answered = try await Self.create("deploy api", on: c)
            #expect(answered["result"]?.objectValue?["responder"] == .string("rule:deploys"), "\(answered)")
            #expect(answered["result"]?.objectValue?["buttonTitle"] == .string("Deploy"), "\(answered)")
            let again = try await b.request(
                "POST", "/v1/rules", json: #"{"name":"deploys","match":{"title":"*"},"button":"Deploy"}"#,
                headers: Self.operator_)
            #expect(again.status == 409, "\(again)")
            let removed = try await b.request("DELETE", "/v1/rules/deploys", headers: Self.operator_)
            #expect(removed.status == 200, "\(removed)")
            let pending = try await Self.create("deploy web", on: a)
            #expect(pending["result"] == .null, "\(pending)")
            let listed = try await c.request("GET", "/v1/rules", headers: Self.operator_).json()
            #expect(listed["rules"]?.arrayValue?.isEmpty == true, "\(listed)")
            let gone = try await a.request("DELETE", "/v1/rules/deploys", headers: Self.operator_)
            #expect(gone.status == 404, "\(gone)")
        }
    }

    @Test("An instance that starts after a rule was made lists it and answers by it")
    func ruleKeptForNewInstances() async throws {
        let file = try Self.tokensFile()
        defer { try? FileManager.default.removeItem(at: file) }
        try await withCluster(instances: 1, arguments: ["--tokens-file", file.path]) { postgres, nodes in
            let made = try await nodes[0].request(
                "POST", "/v1/rules", json: #"{"name":"restarts","match":{"title":"restart *"},"button":"Deploy"}"#,
                headers: Self.operator_)
            #expect(made.status == 201, "\(made)")
            let joined = try await ClusterNode(database: postgres.url, arguments: ["--tokens-file", file.path])
            let listed = try await joined.request("GET", "/v1/rules/restarts", headers: Self.operator_)
            #expect(listed.status == 200, "\(listed)")
            let answered = try await Self.create("restart db", on: joined)
            #expect(answered["result"]?.objectValue?["responder"] == .string("rule:restarts"), "\(answered)")
            await joined.stop()
        }
    }
}
