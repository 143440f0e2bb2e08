import AlertCore
import Locking
import MicroHTTP

/// Every response that shows store state goes out once the journal holds that state: `onChange` for changes
/// (`AlertStore.write`), `onRead` for reads (`AlertStore.read`), `durable(_:showing:)` for an alert read without the
/// store (`snapshot(of:)`). A response released earlier could show a change that a crash then loses. Which thread
/// the response is delivered on is decided by the store (`AlertStore+Entry.swift`, "Threads").
extension APIHandler {
    /// Reads on the store, and answers once what it shows is durable: on this thread at once when the store is idle
    /// and nothing waits for a commit, else on a suspended connection. `respond` turns its value into the response,
    /// `problem` its error; a journal that failed is `503`. `caughtUp` reads after catching up with a cluster's
    /// database (`AlertStore.readCaughtUp`), for what the store does not follow by events (the rules).
    func onRead<T: Sendable>(
        caughtUp: Bool = false,
        _ work: @escaping @Sendable (isolated AlertStore) throws(AlertStoreError) -> T,
        then respond: @escaping @Sendable (T) -> HTTPResponse,
        problem: @escaping @Sendable (AlertStoreError) -> Problem = { Problem($0) }
    ) -> HTTPReply {
        let pending = PendingResponse()
        let deliver: AlertStore.Completion<T> = { outcome in pending.deliver(Self.response(outcome, respond, problem)) }
        if caughtUp { store.readCaughtUp(work, then: deliver) } else { store.read(work, then: deliver) }
        return pending.reply()
    }

    /// Makes a change (a create, an answer, a dismissal: the store decides it, or with a cluster the database does)
    /// and answers once it is durable and readable here: on this thread at once when the store is idle and memory
    /// only, else on a suspended connection. `respond` turns what it wrote into the response, `problem` its error (a
    /// change that could not be made durable is `503`).
    func onChange(
        _ change: AlertStore.Change,
        then respond: @escaping @Sendable (AlertStore.Written) -> HTTPResponse,
        problem: @escaping @Sendable (AlertStoreError) -> Problem = { Problem($0) }
    ) -> HTTPReply {
        let pending = PendingResponse()
        store.write(change) { outcome in pending.deliver(Self.response(outcome, respond, problem)) }
        return pending.reply()
    }

    /// `response`, once the last change to the alert it shows is durable (at once when it is).
    func durable(_ response: HTTPResponse, showing alert: Alert) -> HTTPReply {
        let pending = PendingResponse()
        store.whenDurable(alert) { failure in
            pending.deliver(failure.map { Problem($0).response } ?? response)
        }
        return pending.reply()
    }

    private static func response<T>(
        _ outcome: Result<T, AlertStoreError>, _ respond: (T) -> HTTPResponse, _ problem: (AlertStoreError) -> Problem
    ) -> HTTPResponse {
        switch outcome {
        case .success(let value): respond(value)
        case .failure(let error): problem(error).response
        }
    }
}

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
