import MicroHTTP
import Synchronization

/// Request ids: a random per-process prefix and a counter, so making one costs no system call.
let requestIDs = RequestIDSource()

final class RequestIDSource: Sendable {
    private let prefix = String(UInt32.random(in: 0x1000_0000...UInt32.max), radix: 16)
    private let counter = Atomic<UInt64>(0)

    func next() -> String {
        let number = counter.add(1, ordering: .relaxed).newValue
        return prefix + "-" + String(number, radix: 16)
    }
}

extension APIHandler {
    /// Counts and logs a reply once its status is known, and tags it with the request id and the store's instance
    /// (`X-Alertd-Instance`: clients compare it to tell a restart that lost their alerts from one that kept them).
    func instrument(_ reply: HTTPReply, id: String, route: String, method: String, caller: String?,
                    started: ContinuousClock.Instant) -> HTTPReply {
        switch reply {
        case .response(var response):
            record(response.status, id: id, route: route, method: method, caller: caller, started: started)
            response.headers.add("X-Request-Id", id)
            response.headers.add("X-Alertd-Instance", store.epoch)
            return .response(response)
        case .deferred(let work):
            return .deferred {
                self.instrument(await work(), id: id, route: route, method: method, caller: caller, started: started)
            }
        case .suspended(let start):
            // Recorded when the responder's reply is carried out, on libmicrohttpd's thread.
            return .suspended { responder in
                start(responder.mapping {
                    self.instrument($0, id: id, route: route, method: method, caller: caller, started: started)
                })
            }
        case .stream(var head, let producer):
            record(head.status, id: id, route: route, method: method, caller: caller, started: started)
            head.headers.add("X-Request-Id", id)
            head.headers.add("X-Alertd-Instance", store.epoch)
            return .stream(head, producer)
        }
    }

    func record(_ status: Int, id: String, route: String, method: String, caller: String?,
                        started: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        metrics.request(route: route, method: method, status: status, seconds: seconds)
        log.request(id: id, method: method, route: route, status: status, caller: caller, seconds: seconds)
    }

    /// The client's `X-Request-Id` when it is short and plain, else a fresh one.
    static func requestID(_ given: String?) -> String {
        if let given, (1...64).contains(given.utf8.count),
           given.utf8.allSatisfy({ $0 > 32 && $0 < 127 && $0 != 34 && $0 != 92 }) {
            return given
        }
        return requestIDs.next()
    }
}
