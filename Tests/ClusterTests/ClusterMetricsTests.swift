import Foundation
import HTTPTestSupport
import Testing

/// `/metrics` of an instance in a cluster: its commits to PostgreSQL, the events it read from the others, whether
/// PostgreSQL is reachable, and its reconnects.
@Suite("Cluster: metrics", .spawnsProcesses)
struct ClusterMetricsTests {
    @Test("Commits, batches and events read move with writes; unavailable and reconnects follow PostgreSQL")
    func metricsMove() async throws {
        try await withCluster(instances: 2) { postgres, nodes in
            let (a, b) = (nodes[0], nodes[1])
            let commits = "alertd_cluster_commit_seconds_count"
            let changes = "alertd_cluster_batch_size_sum"
            #expect(try await a.metric("alertd_cluster_unavailable") == 0)
            #expect(try await a.metric("alertd_cluster_reconnects_total") == 0)
            let commitsBefore = try #require(try await a.metric(commits))
            let changesBefore = try #require(try await a.metric(changes))
            let bChangesBefore = try #require(try await b.metric(changes))
            let readBefore = try await eventsRead(b)
            var ids: [String] = []
            for number in 0..<5 { ids.append(try await a.create("metrics \(number)")) }
            let answered = try await b.request("POST", "/v1/alerts/\(ids[0])/response", json: #"{"buttonIndex":1}"#)
            #expect(answered.status == 200)

            // Every create went through one of A's transactions (group commit may put several in one).
            #expect(try await a.metric(changes) == changesBefore + 5)
            let commitsAfter = try #require(try await a.metric(commits))
            #expect(commitsAfter >= commitsBefore + 1 && commitsAfter <= commitsBefore + 5)
            #expect(try await b.metric(changes) == bChangesBefore + 1)
            let text = try await a.request("GET", "/metrics").text
            #expect(text.contains("alertd_cluster_commit_seconds_bucket{le=\"+Inf\"}"))
            // B read A's five creates, by notification, by polling or in its own transaction.
            try await eventually("B counts A's five events as read") { try await eventsRead(b) >= readBefore + 5 }

            try await postgres.stop()
            try await eventually("A reports PostgreSQL unavailable") {
                try await a.metric("alertd_cluster_unavailable") == 1
            }
            try await postgres.start()
            try await eventually("A reconnects and reports PostgreSQL available", within: 20) {
                try await a.metric("alertd_cluster_unavailable") == 0
            }
            #expect(try await a.metric("alertd_cluster_reconnects_total") ?? 0 >= 1)
        }
    }

    /// Other instances' events `node` read, all ways together.
    private func eventsRead(_ node: ClusterNode) async throws -> Double {
        var total = 0.0
        for via in ["notify", "poll", "writer"] {
            total += try await node.metric("alertd_cluster_events_read_total{via=\"\(via)\"}") ?? 0
        }
        return total
    }
}
