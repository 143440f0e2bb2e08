import Foundation
import HTTPTestSupport
import JSON
import Testing

/// A webhook delivery is claimed by one instance for a lease (`--webhook-lease`); when that instance dies before
/// delivering, another one delivers once the lease runs out.
@Suite("Cluster: webhook lease", .spawnsProcesses)
struct ClusterWebhookLeaseTests {
    /// Short, so that the takeover comes within the test; the default is 60 s.
    static let lease = 3

    @Test("A delivery claimed by an instance SIGKILLed before delivering is delivered by another after the lease")
    func takeoverAfterSIGKILL() async throws {
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        receiver.stalling = true
        let arguments = ["--webhook-lease", String(Self.lease), "--webhook-allow", "loopback"]
        // A alone, so that A is the instance that claims the delivery.
        try await withCluster(instances: 1, arguments: arguments) { postgres, nodes in
            let a = nodes[0]
            let callback = "http://127.0.0.1:\(receiver.port)/hook"
            let made = try await a.request("POST", "/v1/alerts", json:
                #"{"title":"Hook","buttons":[{"title":"No"},{"title":"Yes"}],"callback":"\#(callback)"}"#)
            #expect(made.status == 201, "\(made)")
            let id = try made.json().string("id")
            #expect(try await a.request("POST", "/v1/alerts/\(id)/response", json: #"{"buttonIndex":1}"#).status == 200)
            try await eventually("A claimed the delivery and is making it (the receiver holds it unanswered)") {
                receiver.held.map(\.text).contains { $0.contains(id) }
            }
            let b = try await ClusterNode(database: postgres.url, arguments: arguments)
            await a.kill()
            receiver.stalling = false
            do {
                try await eventually("B delivered it once A's lease ran out", within: Double(Self.lease) + 15) {
                    receiver.answered.map(\.text).contains { $0.contains(id) }
                }
                let delivered = try JSONParser.parse(receiver.answered.first { $0.text.contains(id) }!.body)
                #expect(delivered.objectValue?["result"]?.objectValue?["buttonIndex"]?.int64Value == 1)
                // B's webhook member says so; and it does not deliver twice (its claim holds for the lease now).
                try await eventually("B shows the delivery done") {
                    try await b.request("GET", "/v1/alerts/\(id)").json()["webhook"]?.objectValue?["state"]?
                        .stringValue == "delivered"
                }
                #expect(receiver.answered.map(\.text).filter { $0.contains(id) }.count == 1)
            } catch {
                await b.kill()
                throw error
            }
            await b.stop()
        }
    }
}
