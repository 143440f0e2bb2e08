import Foundation
import HTTPTestSupport
import JSON
import Locking
import Testing

/// A producer under load: it creates alerts one after another with an Idempotency-Key each, through the instances
/// it is given (the next one when an instance does not answer, as a load balancer would), retrying a key until it is
/// acknowledged, and records every acknowledged create and every status it saw. When `answering`, it also answers
/// every other alert it created (button 1, on the next instance), retrying until an answer is acknowledged.
final class Producer: Sendable {
    private struct State {
        var acknowledged: [(key: String, id: String)] = []
        /// The ids whose answer was acknowledged (`200`).
        var answered: [String] = []
        var statuses: [Int: Int] = [:]
        var stopped = false
    }

    private let name: String
    private let answering: Bool
    private let state = Lock(State())

    init(name: String, answering: Bool = false) {
        self.name = name
        self.answering = answering
    }

    var acknowledged: [(key: String, id: String)] { state.withLock { $0.acknowledged } }
    var answered: [String] { state.withLock { $0.answered } }
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
                if answering && number.isMultiple(of: 2) { await answer(id, through: nodes, from: node + 1) }
                number += 1
            } else {
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    /// Answers `id` with button 1 until an answer is acknowledged (`200`), or a `409` says an earlier attempt whose
    /// answer was lost on the way made it (nobody else answers), or the producer is stopped.
    private func answer(_ id: String, through nodes: [ClusterNode], from first: Int) async {
        var node = first
        while !state.withLock({ $0.stopped }) {
            let response = try? await nodes[node % nodes.count].request(
                "POST", "/v1/alerts/\(id)/response", json: #"{"buttonIndex":1}"#, timeout: 10)
            guard let response else {
                node += 1
                continue
            }
            state.withLock { $0.statuses[response.status, default: 0] += 1 }
            if response.status == 200 { state.withLock { $0.answered.append(id) } }
            if response.status == 200 || response.status == 409 { return }
            try? await Task.sleep(for: .milliseconds(50))
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
        let stream = try SSEClient(port: node.port, headers: [("Last-Event-ID", "\(start)")] + node.authorization,
                                   lifetime: 120)
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

/// Every node serves exactly the alerts PostgreSQL holds, each in the state PostgreSQL has (no id it did not get
/// from it, none missing), each shown alike by every node (its votes and Result included; pass one started after the
/// load, which read them from PostgreSQL alone), and exactly the rules PostgreSQL holds; every acknowledged answer
/// is in PostgreSQL as made.
func expectSameAsPostgres(_ producers: [Producer], on nodes: [ClusterNode], postgres: ScratchPostgres) async throws {
    var states: [String: String] = [:]
    for line in try await postgres.sql("SELECT id, state FROM alertd_alerts").split(separator: "\n") {
        let columns = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        guard columns.count == 2 else { continue }
        states[columns[0]] = columns[1]
    }
    let unanswered = producers.flatMap(\.answered).filter { states[$0] != "answered" }
    #expect(unanswered.isEmpty, "acknowledged answers PostgreSQL does not hold: \(unanswered.prefix(5))")
    let stored = states.mapValues { $0 == "pending" ? "pending" : "resolved" }
    let rules = try await postgres.sql("SELECT name FROM alertd_rules ORDER BY name").split(separator: "\n")
        .map(String.init)
    let head = try await postgres.sql("SELECT head FROM alertd_cluster")
    var first: [String: JSONObject]?
    for node in nodes {
        try await eventually("\(node.port) reached PostgreSQL's head \(head)") {
            try await node.index() >= UInt64(head) ?? 0
        }
        let shown = try await node.alerts()
        #expect(shown.count == stored.count, "\(node.port) shows \(shown.count) alerts; PostgreSQL: \(stored.count)")
        let foreign = shown.filter { stored[$0.key] == nil }.map(\.key)
        let missing = stored.filter { shown[$0.key] == nil }.map(\.key)
        let differing = shown.filter { entry in
            stored[entry.key].map { $0 != entry.value["state"]?.stringValue } ?? false
        }.map(\.key)
        #expect(foreign.isEmpty, "\(node.port) serves ids PostgreSQL does not hold: \(foreign.prefix(5))")
        #expect(missing.isEmpty, "\(node.port) lacks ids PostgreSQL holds: \(missing.prefix(5))")
        #expect(differing.isEmpty, "\(node.port) shows another state than PostgreSQL for \(differing.prefix(5))")
        if let first {
            let unlike = shown.filter { entry in first[entry.key].map { $0 != entry.value } ?? false }.map(\.key)
            #expect(unlike.isEmpty,
                    "\(node.port) shows \(unlike.count) alerts otherwise than \(nodes[0].port): \(unlike.prefix(5))")
        }
        first = first ?? shown
        let listed = (try await node.request("GET", "/v1/rules").json()["rules"]?.arrayValue ?? [])
            .compactMap { $0["name"]?.stringValue }.sorted()
        #expect(listed == rules, "\(node.port) lists the rules \(listed); PostgreSQL holds \(rules)")
    }
}

extension ClusterNode {
    /// Every alert this instance lists (`state=all`, every page), by id.
    func alerts() async throws -> [String: JSONObject] {
        var alerts: [String: JSONObject] = [:]
        var after: String?
        repeat {
            let target = "/v1/alerts?state=all&limit=1000" + (after.map { "&after=\($0)" } ?? "")
            let page = try await request("GET", target)
            try #require(page.status == 200, "list: \(page)")
            let body = try page.json()
            for alert in body["alerts"]?.arrayValue ?? [] {
                guard let object = alert.objectValue, let id = object["id"]?.stringValue else { continue }
                alerts[id] = object
            }
            after = body["next"]?.int64Value.map { String($0) }
        } while after != nil
        return alerts
    }
}
