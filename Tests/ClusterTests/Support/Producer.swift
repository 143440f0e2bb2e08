import Foundation
import HTTPTestSupport
import Locking
import Testing

/// A producer under load: it creates alerts one after another with an Idempotency-Key each, through the instances
/// it is given (the next one when an instance does not answer, as a load balancer would), retrying a key until it is
/// acknowledged, and records every acknowledged create and every status it saw.
final class Producer: Sendable {
    private struct State {
        var acknowledged: [(key: String, id: String)] = []
        var statuses: [Int: Int] = [:]
        var stopped = false
    }

    private let name: String
    private let state = Lock(State())

    init(name: String) {
        self.name = name
    }

    var acknowledged: [(key: String, id: String)] { state.withLock { $0.acknowledged } }
    var statuses: [Int: Int] { state.withLock { $0.statuses } }

    func stop() {
        state.withLock { $0.stopped = true }
    }

    /// Runs until `stop()`; `nodes` are tried in turn starting with the first.
    func run(_ nodes: [ClusterNode]) async {
        var number = 0
        var node = 0
        while !state.withLock({ $0.stopped }) {
            let key = "\(name)-\(number)"
            let response = try? await nodes[node % nodes.count].request(
                "POST", "/v1/alerts", json: ClusterNode.draft(key), headers: [("Idempotency-Key", key)], timeout: 10)
            guard let response else {
                node += 1  // the instance is gone: the next one
                continue
            }
            state.withLock { $0.statuses[response.status, default: 0] += 1 }
            if response.status == 201 || response.status == 200, let id = try? response.json().string("id") {
                state.withLock { $0.acknowledged.append((key, id)) }
                number += 1
            } else {
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
    }
}

/// Every acknowledged create is on every node with its id; a retry of its key returns it; the event history
/// after `start` is gap-free and the same on every node.
func expectKept(_ producers: [Producer], on nodes: [ClusterNode], since start: UInt64) async throws {
    let acknowledged = producers.flatMap(\.acknowledged)
    for node in nodes {
        try await eventually("\(node.port) caught up") { try await node.index() >= nodes[0].index() }
    }
    for (number, entry) in acknowledged.enumerated() {
        let node = nodes[number % nodes.count]
        let read = try await node.request("GET", "/v1/alerts/\(entry.id)")
        #expect(read.status == 200, "\(entry.key) → \(entry.id) on \(node.port)")
        if number.isMultiple(of: 7) {
            let retried = try await node.request("POST", "/v1/alerts", json: ClusterNode.draft(entry.key),
                                                 headers: [("Idempotency-Key", entry.key)])
            #expect(try retried.json().string("id") == entry.id)
        }
    }
    var histories: [[SSEMessage]] = []
    let head = try await nodes[0].index()
    for node in nodes {
        let stream = try SSEClient(port: node.port, headers: [("Last-Event-ID", "\(start)")], lifetime: 120)
        try await eventually("\(node.port) streams its history") {
            stream.received.last.map { ($0.index ?? 0) >= head } ?? (head == start)
        }
        stream.disconnect()
        let events = stream.received.filter { ($0.index ?? 0) <= head }
        #expect(events.compactMap(\.index) == Array(start + 1 ..< head + 1), "gap-free on \(node.port)")
        histories.append(events)
    }
    #expect(histories.allSatisfy { $0 == histories[0] })
    let created = Set(histories[0].filter { $0.event == "created" }.map(\.data))
    #expect(created.count == histories[0].filter { $0.event == "created" }.count, "no event twice")
}
