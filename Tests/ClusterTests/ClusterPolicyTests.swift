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
