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
    /// Tags every response `request` gets with its id and the store's instance (`X-Alertd-Instance`: clients compare
    /// it to tell a restart that lost their alerts from one that kept them), and counts and logs the request when the
    /// transport reports its end, whoever answered it: the handler at once, deferred work, a woken waiter, a stream
    /// when it ends, or the transport at shutdown. A request that ended before any response was queued (the client
    /// left first) is logged as 499, nginx's "client closed request".
    func observe(_ request: HTTPRequest, route: String, caller: String?) {
        let id = Self.requestID(request.headers["x-request-id"])
        request.addResponseHeader("X-Request-Id", id)
        request.addResponseHeader("X-Alertd-Instance", store.epoch)
        let (metrics, log, method) = (self.metrics, self.log, Self.methodLabel(request.method))
        let client = request.clientAddress
        request.onFinish { end in
            Self.record(end.status == 0 ? 499 : end.status, after: end.duration, id: id, route: route, method: method,
                        caller: caller, client: client, metrics: metrics, log: log)
        }
    }

    /// Counts a request in metrics and writes its log line.
    static func record(_ status: Int, after elapsed: Duration, id: String, route: String, method: String,
                       caller: String?, client: String?, metrics: Metrics, log: AccessLog) {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        metrics.request(route: route, method: method, status: status, seconds: seconds)
        log.request(id: id, method: method, route: route, status: status, caller: caller, client: client,
                    seconds: seconds)
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
