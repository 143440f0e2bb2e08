@testable import AlertAPI
import Foundation
import JSON
import Locking
import Testing

/// A webhook delivery that a restart cut short goes on from the attempts the alert records.
@Suite("Webhooks across a restart")
struct WebhookRestartTests {
    @Test("After a restart the attempt count goes on: X-Alertd-Delivery-Attempt matches the alert's attempts")
    func attemptsGoOnAfterARestart() async throws {
        let accepting = Switch()
        let failure = Array("HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
        let receiver = try WebhookReceiver(statuses: [200]) { _ in accepting.isOn ? .scripted : .bytes(failure) }
        defer { receiver.stop() }
        let data = FileManager.default.temporaryDirectory.path + "/alertd-webhook-restart-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: data) }

        var id = ""
        try await LiveServer.with({ $0.dataDirectory = data; $0.webhooks = .loopback }) { server in
            id = try await server.create(#"{"title":"Deploy?","callback":\#(jsonString(receiver.url()))}"#)
            #expect(try await server.answer(id, #"{"buttonIndex":0}"#).status == 200)
            let seen = try await server.watchWebhook(id) { ($0["attempts"]?.int64Value ?? 0) >= 2 }
            try #require((seen.last?["attempts"]?.int64Value ?? 0) >= 2, "\(seen)")
        }
        accepting.turnOn()
        try await LiveServer.with({ $0.dataDirectory = data; $0.webhooks = .loopback }) { server in
            let seen = try await server.watchWebhook(id) { $0["state"] == .string("delivered") }
            let final = try #require(seen.last)
            try #require(final["state"] == .string("delivered"), "\(seen)")
            let delivered = try #require(receiver.requests.last)
            let attempts = try #require(final["attempts"]?.int64Value)
            #expect(attempts >= 3, "\(seen)")
            let number = delivered.headers["x-alertd-delivery-attempt"] ?? "none"
            #expect(number == String(attempts), "the receiver accepted attempt \(number) of \(attempts)")
            let numbers = receiver.requests.compactMap { $0.headers["x-alertd-delivery-attempt"].flatMap { Int($0) } }
            #expect(numbers == numbers.sorted(), "attempt numbers went back: \(numbers)")
        }
    }
}

/// A flag the receiver's answer reads: off until the test turns it on.
private final class Switch: Sendable {
    private let state = Lock(false)

    var isOn: Bool { state.withLock { $0 } }

    func turnOn() {
        state.withLock { $0 = true }
    }
}
