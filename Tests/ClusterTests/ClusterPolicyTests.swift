import Foundation
import HTTPTestSupport
import JSON
import Testing

/// Who may answer, across instances: the policy is stored with the alert in PostgreSQL, so every instance holds
/// every token to it, including one that had not seen the alert yet.
@Suite("Cluster: answer policies", .serialized)
struct ClusterPolicyTests {
    static let ci = "ci-producer-token-0001"
    static let alice = "alice-responder-token-03"
    static let bob = "bob-responder-token-0005"

    @Test("A policy made on A holds on B and C: a refused token gets 403 at once, the named one answers elsewhere")
    func policyAcrossInstances() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("alertd-cluster-tokens-\(UUID())")
        defer { try? FileManager.default.removeItem(at: file) }
        try "ci:producer:\(Self.ci)\nalice:responder:\(Self.alice)\nbob:responder:\(Self.bob):ops\n"
            .write(to: file, atomically: true, encoding: .utf8)
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
            let shown = try await b.request("GET", "/v1/alerts/\(id)", headers: [("Authorization", "Bearer \(Self.bob)")])
            let alert = try shown.json()
            #expect(alert["responders"] == .array([.string("alice")]))
            #expect(alert["result"]?.objectValue?["responder"] == .string("alice"))
        }
    }

    @Test("A cluster refuses escalation with 422 at /escalation and creates nothing")
    func escalationRefused() async throws {
        try await withCluster { _, nodes in
            let refused = try await nodes[0].request(
                "POST", "/v1/alerts", json: #"{"message":"Disk?","escalation":[{"after":60,"presenter":"oncall"}]}"#)
            #expect(refused.status == 422, "\(refused)")
            let pointers = (try refused.json()["errors"]?.arrayValue ?? []).compactMap {
                $0.objectValue?["pointer"]?.stringValue
            }
            #expect(pointers == ["/escalation"], "\(refused)")
            #expect(refused.text.contains("not supported by a cluster"), "\(refused)")
            let listed = try await nodes[1].request("GET", "/v1/alerts")
            #expect(try listed.json()["alerts"]?.arrayValue?.isEmpty == true, "\(listed)")
        }
    }

    @Test("A cluster refuses quorum > 1 with 422 at /quorum and creates nothing; quorum 1 is an ordinary alert")
    func quorumRefused() async throws {
        try await withCluster { _, nodes in
            let refused = try await nodes[0].request("POST", "/v1/alerts",
                                                     json: #"{"message":"Ship?","buttons":["No","Yes"],"quorum":2}"#)
            #expect(refused.status == 422, "\(refused)")
            let errors = try refused.json()["errors"]?.arrayValue ?? []
            let pointers = errors.compactMap { $0.objectValue?["pointer"]?.stringValue }
            #expect(pointers == ["/quorum"], "\(refused)")
            #expect(refused.text.contains("not supported by a cluster"), "\(refused)")
            let listed = try await nodes[1].request("GET", "/v1/alerts")
            #expect(try listed.json()["alerts"]?.arrayValue?.isEmpty == true, "\(listed)")
            let single = try await nodes[0].request("POST", "/v1/alerts", json: #"{"message":"Ship?","quorum":1}"#)
            #expect(single.status == 201, "\(single)")
            let id = try single.json().string("id")
            let answered = try await nodes[2].request("POST", "/v1/alerts/\(id)/response", json: #"{"buttonIndex":0}"#)
            #expect(answered.status == 200, "\(answered)")
        }
    }
}

/// Rules that answer, across instances: PostgreSQL keeps them, and each instance's writer applies the rules it finds
/// in the transaction that creates an alert or adds a rule, so a rule made on one instance answers on every other at
/// once.
@Suite("Cluster: rules that answer", .serialized)
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
                let alert = try await node.request("GET", "/v1/alerts/\(waiting)", headers: Self.producer).json()
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
