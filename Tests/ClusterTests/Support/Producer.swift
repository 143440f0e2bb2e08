import Foundation
import HTTPTestSupport
import Locking

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
