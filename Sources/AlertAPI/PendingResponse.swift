import Locking
import MicroHTTP

/// A response that is ready either before the handler returns (the store was idle and nothing waited for a commit)
/// or later, from another thread (a store job, the journal's thread): `reply()` hands it to the transport either way,
/// without suspending the connection when it is ready at once.
final class PendingResponse: Sendable {
    private enum State: Sendable {
        /// Neither the response nor a responder yet.
        case waiting
        /// The response, before the transport asked for it.
        case ready(HTTPResponse)
        /// The suspended connection's responder, before the response.
        case attached(HTTPResponder)
        /// Handed over.
        case done
    }

    private let state = Lock<State>(.waiting)

    /// Gives the response; the first one given wins.
    func deliver(_ response: HTTPResponse) {
        let responder = state.withLock { state -> HTTPResponder? in
            switch state {
            case .waiting:
                state = .ready(response)
                return nil
            case .attached(let responder):
                state = .done
                return responder
            case .ready, .done:
                return nil
            }
        }
        responder?.respond(.response(response))
    }

    /// The reply for the transport: the response when it is ready now, else a suspended connection that gets it.
    func reply() -> HTTPReply {
        let ready = state.withLock { state -> HTTPResponse? in
            guard case .ready(let response) = state else { return nil }
            state = .done
            return response
        }
        if let ready { return .response(ready) }
        return .suspended { responder in
            let ready = self.state.withLock { state -> HTTPResponse? in
                guard case .ready(let response) = state else {
                    state = .attached(responder)
                    return nil
                }
                state = .done
                return response
            }
            if let ready { responder.respond(.response(ready)) }
        }
    }
}
