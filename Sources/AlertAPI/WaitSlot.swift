import MicroHTTP

/// One wait slot, held from `acquire` until the last closure that captured it is gone: answered,
/// timed out, cancelled, or dropped by the transport without ever running (a stopping server, a
/// HEAD request's stream, a failed response). `deinit` gives it back, so that happens exactly once
/// on every path.
final class WaitSlot: Sendable {
    private let waits: ClientWaits
    private let client: String

    /// Takes a slot for `client`; nil when it holds the limit already.
    init?(_ waits: ClientWaits, client: String) {
        guard waits.acquire(client) else { return nil }
        self.waits = waits
        self.client = client
    }

    deinit {
        waits.release(client)
    }

    /// `reply`, holding this slot until it is over: deferred work may answer with more deferred
    /// work or a stream, and each captures the slot in turn. A suspended reply's slot is held by its
    /// responder's cancel handler, which the transport drops when the request is answered and runs
    /// when it gives up on it.
    func holding(_ reply: HTTPReply) -> HTTPReply {
        switch reply {
        case .response:
            return reply
        case .deferred(let work):
            return .deferred { self.holding(await work()) }
        case .suspended(let start):
            // The transport keeps the cancel handler until the request is answered or given up on.
            return .suspended { responder in
                responder.onCancel { withExtendedLifetime(self) {} }
                start(responder)
            }
        case .stream(let head, let producer):
            return .stream(head) { stream in
                await producer(stream)
                withExtendedLifetime(self) {}
            }
        }
    }
}
